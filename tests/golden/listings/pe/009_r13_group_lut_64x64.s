; listing of pe/009_r13_group_lut_64x64.json: R-13 default (group-lut): a 64 x 64 stationary (K = M = 64) at partition 0: row group 0x03 (the book's LUT: K <= 64 from partition 0), column group 0x0F (forced, as every gen3 bundle); R-10: one dim (-1, 64) from the last column.
.target gen3
.stream pe
00000000:  |01100000 00000000 00000000 00000000 …|  Ldweights stationary=sb[p0:64]+0x407e[-1x64].float16
