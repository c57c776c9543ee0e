; listing of next/113_pool_max_window_keeps_size1_pair.json: Max pool of a 4x4 window per partition; the input's (16,1) pair is kept in its slot (N-24, no dropping).
.target gen2
.stream dve
00000000:  |45100000 00000000 00000000 00000000 …|  Pool func=Max, src=sb[p0:128][16x1][4x4][1x4].float32, dst=sb[p0:128]+0x1000.float32, scale=1.0:float32
