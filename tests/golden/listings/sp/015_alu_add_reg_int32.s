; listing of sp/015_alu_add_reg_int32.json: RegisterAlu add, register path, 32-bit: r5 = r6 + r7.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 04010000 …|  AluOp.reg op=add, dst=r5, src1=r6, src2=r7
