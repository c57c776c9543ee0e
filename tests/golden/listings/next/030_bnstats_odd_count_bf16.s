; listing of next/030_bnstats_odd_count_bf16.json: BNStats over an odd count (7) of bf16 elements: n_A = 4, n_B = 3.
.target gen2
.stream dve
00000000:  |61100000 00000000 00000000 00000000 …|  BatchNormStats2 src=sb[p0:128][1x7].bfloat16, dst=sb[p0:128]+0x8020[1x6].float32
