; listing of move/002_stream_transpose_real_partial.json: StreamTranspose (IT40) of a [20, 32] float32 tile into a [5, 20] one at partition 32: fewer than 32 dst partitions, so a LoadMaskSelect enabling dst lanes 0..4 comes first and the 0x6B sets its mask flag (R-55): the real pair of BIR instruction I-34225-120, byte for byte.
.target gen2
.stream dve
00000000:  |69100000 05060000 08110000 00000000 …|  LoadMaskSelect mask=[0*5,-*27], wait sem6>=4360
00000040:  |6b100000 00001306 00000000 e0870100 …|  StreamTranspose src=sb[p0:32]+0x187e0[1x32].float32, dst=sb[p32:32]+0x4560[1x20].float32, use_mask=1, upd sem6++
