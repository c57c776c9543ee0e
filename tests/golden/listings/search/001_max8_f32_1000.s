; listing of search/001_max8_f32_1000.json: Max8 (BIR Max, IT88) of a [128, 1000] fp32 tile into [128, 8]: the destination written from its last element backwards, as every real Max8 bundle.
.target gen2
.stream dve
00000000:  |6c100000 00000000 00000000 00100000 …|  Max8 src=sb[p0:128]+0x1000[1x1000].float32, dst=sb[p0:128]+0x201c[-1x8].float32
