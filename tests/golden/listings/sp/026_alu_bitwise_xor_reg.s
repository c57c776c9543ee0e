; listing of sp/026_alu_bitwise_xor_reg.json: bitwise_xor -> wire 0x0C, register path.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 0c010000 …|  AluOp.reg op=bitwise_xor, dst=r23, src1=r24, src2=r25
