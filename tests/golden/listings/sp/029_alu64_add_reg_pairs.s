; listing of sp/029_alu64_add_reg_pairs.json: 64-bit RegisterAlu add on uint64 register pairs: register path bytes plus dst pair lo/hi at +0x14/+0x15.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 04010000 …|  AluOp.reg64 op=add, dst=r10:r11, src1=r12, src2=r14
