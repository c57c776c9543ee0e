; listing of pe/007_r11_interior_and_last_flags.json: R-11 default: an interior Matmul (neither start nor stop) carries 0x00 = accumulate, the last 0x02 (every real group is 01, 00 x30, 02).
.target gen3
.stream pe
00000000:  |02100000 00001305 00000000 00000000 …|  Matmul moving=sb[p0:128]+0x37f00[1x64].float16, psum=psum.b0[p0:128][1x64], flags=middle, upd sem5++
00000040:  |02100000 00001305 00000000 00000000 …|  Matmul moving=sb[p0:128]+0x37f00[1x64].float16, psum=psum.b0[p0:128][1x64], flags=last, upd sem5++
