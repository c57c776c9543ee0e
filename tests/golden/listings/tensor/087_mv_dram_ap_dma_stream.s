; listing of tensor/087_mv_dram_ap_dma_stream.json: MoveShape encodes no address, so a DRAM AP is accepted; engine DMA routes it to the dma stream; 1-byte element size fills unused steps.
.target gen2
.stream dma
00000000:  |b2100000 00000000 00000000 00010100 …|  MoveShape shape=[1x1][1x1][1x1][2x128]
