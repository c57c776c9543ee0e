; listing of sp/022_alu_is_ge_reg.json: is_ge (ordinal 21) -> wire 0x14, register path.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 14010000 …|  AluOp.reg op=is_ge, dst=r13, src1=r14, src2=r15
