; listing of next/031_bnstats_single_element.json: BNStats with N = 1: the odd lane is empty (n_B = 0).
.target gen2
.stream dve
00000000:  |61100000 00000000 00000000 00000000 …|  BatchNormStats2 src=sb[p0:128].float32, dst=sb[p0:128]+0x8020[1x6].float32
