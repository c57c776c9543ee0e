; listing of pe/004_r9_step1_count1_fill.json: R-9 alternative: the PE's unused dims hold D-6's {1, 1} instead of the real {0, 1} (the kernel of 002).
.target gen3
.decision R-9=step1-count1
.stream pe
00000000:  |01100000 05040000 01000000 00000000 …|  Ldweights stationary=sb[p0:128]+0x40fe[-32x4][1x1][-1x32].float16, wait sem4>=1
00000040:  |02100000 00001305 00000000 00000000 …|  Matmul moving=sb[p0:128]+0x37f00[1x64].float16, psum=psum.b0[p0:128][1x64], flags=first, upd sem5++
