; listing of pe/001_matmult_transpose_real_pe3_pe4.json: A transpose Matmult (stationary = a fp16 x tile at SBUF 0x37C00, moving = the identity at 0x37B00, fp16 PSUM result in bank 1) lowers to the real matmul_small sg00 PE[3] (Ldweights) and PE[4] (Matmul), byte for byte.
.target gen3
.stream pe
00000000:  |01100000 05080000 10000000 00000000 …|  Ldweights stationary=sb[p0:128]+0x37cfe[-32x4][0x1][-1x32].float16, transpose=1, wait sem8>=16
00000040:  |02100000 00001305 00000000 00000000 …|  Matmul moving=sb[p0:128]+0x37b00[1x128].float16, psum=psum.b1[p0:128][1x128], flags=whole, transpose=1, upd sem5++
