; listing of move/001_stream_shuffle_real_broadcast.json: StreamShuffle (IT39) with an all-zero mask: the float32 at partition 0 byte 0x2BFF8 copied to byte 0 of partitions 0..31, then of 32..63 (a broadcast_in_dim of the multiply graph); each is two bundles, LoadMaskSelect 0x69 of the mask then the 0x6A move (the mask first, R-52): the real bundles of BIR instructions I-44-0 and I-45-0, byte for byte.
.target gen2
.stream dve
00000000:  |69100000 05080000 10000000 00000000  |  LoadMaskSelect mask=[0*32], wait sem8>=16
00000040:  |6a100000 00001306 00000000 f8bf0200 …|  StreamShuffle src=sb[p0:32]+0x2bff8.float32, dst=sb[p0:32].float32, upd sem6++
00000080:  |69100000 00000000 00000000 00000000  |  LoadMaskSelect mask=[0*32]
000000c0:  |6a100000 00001306 00000000 f8bf0200 …|  StreamShuffle src=sb[p0:32]+0x2bff8.float32, dst=sb[p32:32].float32, upd sem6++
