; listing of pe/008_r12_fp32_transpose.json: R-12 alternative: a transpose writes fp32 PSUM, so its BIR dst is float32 (the default refuses that dst, 012).
.target gen3
.decision R-12=fp32
.stream pe
00000000:  |02100000 00001305 00000000 00000000 …|  Matmul moving=sb[p0:128]+0x37b00[1x128].float16, psum=psum.b1[p0:128][1x128], flags=whole, transpose=1, upd sem5++
