; the DVE data-movement family (tests/test_move.py GOLDEN_BUNDLES and two hand-packed bundles)
.target gen2
.stream dve
00000000:  |69100000 05080000 10000000 00000000 …|  LoadMaskSelect mask=[3,-,0,31,-*28], wait sem8>=16
00000040:  |69100000 00000000 00000000 00000000 …|  LoadMaskSelect mask=[0*5,-*27]
00000080:  |6b100000 00001306 00000000 00008001 …|  StreamTranspose src=sb[p96:32][1x32].bfloat16, dst=sb[p0:32]+0x296f8[1x32].bfloat16, use_mask=1, upd sem6++
000000c0:  |6a100000 00001306 00000000 f8bf0200 …|  StreamShuffle src=sb[p0:32]+0x2bff8.float32, dst=sb[p0:32].float32, upd sem6++
00000100:  |6a100000 00000000 00000000 00018000 …|  StreamShuffle src=sb[p32:32]+0x100[1x4].float32, dst=sb[p0:32][1x4].float32
00000140:  |6b100000 00000000 00000000 00000000 …|  StreamTranspose src=sb[p0:32][0x32][1x1][1x1][1x1].bfloat16, dst=sb[p64:32]+0x40[1x20].bfloat16, use_mask=1
