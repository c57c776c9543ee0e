; listing of next/114_pool_avg_2x2_window_unassigned.json: 2x2 average pooling of a 4x4 image per partition (5-pair band-pool AP), engine Unassigned -> dve (N-16; NEFF DVE table has 0x45).
.target gen2
.stream dve
00000000:  |45100000 00000000 00000000 00000000 …|  Pool func=Avg, src=sb[p0:128][8x2][2x2][4x2][1x2].float32, dst=sb[p0:128]+0x1000[1x4].float32, scale=0.25:float32
