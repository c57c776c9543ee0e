; listing of move/003_stream_transpose_real_whole.json: StreamTranspose (IT40) of a whole [32, 32] bfloat16 block: every dst lane written, so one 0x6B bundle with no mask and the mask flag clear (R-55, R-53): the real bundle of BIR instruction I-19234-0, byte for byte.
.target gen2
.stream dve
00000000:  |6b100000 05461306 10000000 08d20000 …|  StreamTranspose src=sb[p0:32]+0xd208[1x32].bfloat16, dst=sb[p0:32]+0x7808[1x32].bfloat16, wait sem70>=16 / upd sem6++
