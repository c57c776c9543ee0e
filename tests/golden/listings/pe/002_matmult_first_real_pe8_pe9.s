; listing of pe/002_matmult_first_real_pe8_pe9.json: The first Matmult of an accumulation group (start, not stop) into fp32 PSUM bank 0: matmul_small sg00 PE[8], PE[9].
.target gen3
.stream pe
00000000:  |01100000 05040000 01000000 00000000 …|  Ldweights stationary=sb[p0:128]+0x40fe[-32x4][0x1][-1x32].float16, wait sem4>=1
00000040:  |02100000 00001305 00000000 00000000 …|  Matmul moving=sb[p0:128]+0x37f00[1x64].float16, psum=psum.b0[p0:128][1x64], flags=first, upd sem5++
