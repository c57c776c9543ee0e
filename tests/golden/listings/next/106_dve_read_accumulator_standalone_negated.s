; listing of next/106_dve_read_accumulator_standalone_negated.json: Standalone DveReadAccumulator with negated true (JSON key "negated").
.target gen2
.stream dve
00000000:  |9b100000 00000000 00000000 00000000 …|  DveReadAccumulator dst=sb[p0:128]+0x8020.float32, negated=1
