; listing of next/033_bnstats_p32_lane_count.json: BNStats on 64 partitions starting at partition 32: +0x22 under the default lane-count reading (N-39).
.target gen2
.stream dve
00000000:  |61100000 00000000 00000000 00008000 …|  BatchNormStats2 src=sb[p32:64][1x16].float32, dst=sb[p32:64]+0x8000[1x6].float32
