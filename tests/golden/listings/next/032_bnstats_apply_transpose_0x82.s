; listing of next/032_bnstats_apply_transpose_0x82.json: BNStats with apply_transpose: only the opcode changes (0x82).
.target gen2
.stream dve
00000000:  |82100000 00000000 00000000 00000000 …|  TransposeBatchNormStats2 src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x8020[1x6].float32
