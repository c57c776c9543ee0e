; listing of sp/020_alu_is_le_reg.json: is_le (ordinal 23) -> wire 0x15, register path.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 15010000 …|  AluOp.reg op=is_le, dst=r8, src1=r9, src2=r10
