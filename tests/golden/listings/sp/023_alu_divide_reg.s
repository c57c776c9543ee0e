; listing of sp/023_alu_divide_reg.json: divide -> wire 0x07, register path.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 07010000 …|  AluOp.reg op=divide, dst=r16, src1=r17, src2=r18
