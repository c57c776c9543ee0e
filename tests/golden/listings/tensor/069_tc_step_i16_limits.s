; listing of tensor/069_tc_step_i16_limits.json: Steps 32767 and -32768 are the i16 extremes and are encoded exactly (the partition pair's step is not encoded).
.target gen2
.stream dve
00000000:  |46100000 00000000 00000000 00000000 …|  Copy src=sb[p0:128][32767x2].uint8, dst=sb[p0:128]+0x10000[1x2].uint8
00000040:  |46100000 00000000 00000000 00800000 …|  Copy src=sb[p0:128]+0x8000[-32768x2].uint8, dst=sb[p0:128]+0x10000[1x2].uint8
