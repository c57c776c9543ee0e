; listing of next/038_bnaggr_two_bnstats_outputs.json: BNStatsAggregate over 12 values per partition (two BNStats outputs, LayerNorm with D > 512).
.target gen2
.stream dve
00000000:  |62100000 00000000 00000000 00800000 …|  BatchNormAggregate src=sb[p0:128]+0x8000[1x12].float32, dst=sb[p0:128]+0x8040[1x2].float32
