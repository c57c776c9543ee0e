; listing of sp/030_alu64_mult_imm_u64.json: 64-bit RegisterAlu mult with a uint64 immediate: dtype bytes 0x01, dst pair at +0x14/+0x15, u64 immediate at +0x18.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 06010101 …|  AluOp.imm64 op=mult, dst=r40:r41, src1=r42, imm=4294967301:uint64, dst_dtype=uint64
