; listing of sp/018_alu_not_equal_reg.json: not_equal (ordinal 19) encodes as the re-mapped wire byte 0x18 on the register path.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 18010000 …|  AluOp.reg op=not_equal, dst=r1, src1=r2, src2=r3
