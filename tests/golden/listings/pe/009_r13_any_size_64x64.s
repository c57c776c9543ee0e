; listing of pe/009_r13_any_size_64x64.json: R-13 alternative: a 64 x 64 stationary (K = M = 64) is encoded: ADDR4 = the last of 64 columns, counts (32, 1, 2).
.target gen3
.decision R-13=any-size
.stream pe
00000000:  |01100000 00000000 00000000 00000000 …|  Ldweights stationary=sb[p0:64]+0x407e[-32x2][0x1][-1x32].float16
