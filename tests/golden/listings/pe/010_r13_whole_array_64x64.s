; listing of pe/010_r13_whole_array_64x64.json: R-13=whole-array: the same 64 x 64 stationary, both group bytes 0x0F whatever the tile.
.target gen3
.decision R-13=whole-array
.stream pe
00000000:  |01100000 00000000 00000000 00000000 …|  Ldweights stationary=sb[p0:64]+0x407e[-1x64].float16
