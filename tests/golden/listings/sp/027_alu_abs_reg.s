; listing of sp/027_alu_abs_reg.json: abs (ordinal 29) -> wire 0x19, register path.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 19010000 …|  AluOp.reg op=abs, dst=r26, src1=r27, src2=r28
