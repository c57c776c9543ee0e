; listing of next/029_bnstats_f32_512.json: BNStats over 512 fp32 elements per partition -> 6 stats (the chapter §7.1 worked bundle).
.target gen2
.stream dve
00000000:  |61100000 00000000 00000000 00000000 …|  BatchNormStats2 src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x8020[1x6].float32
