; listing of pe/010_r13_full_tile_refuses_64x64.json: R-13 default: the same 64 x 64 stationary encodes but breaks pe.full_tile (only 128 x 128 seen): assemble refuses it.
.target gen3
.stream pe
00000000:  |01100000 00000000 00000000 00000000 …|  Ldweights stationary=sb[p0:64]+0x407e[-32x2][0x1][-1x32].float16
