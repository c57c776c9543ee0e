; listing of next/037_bnaggr_one_triple_pair.json: BNStatsAggregate of one BNStats output (6 values) into [mean, var]: no count words at +0x28/+0x2C.
.target gen2
.stream dve
00000000:  |62100000 00000000 00000000 20800000 …|  BatchNormAggregate src=sb[p0:128]+0x8020[1x6].float32, dst=sb[p0:128]+0x8040[1x2].float32
