; listing of dma/017_r17_same_bytes.json: R-17=dge-var-id: the bytes of 002 do not change (the DGE entry is written as given under either reading of R-17 (what it names is resolved when the DMA runs)).
.target gen3
.decision R-17=dge-var-id
.stream pool
00000000:  |d4100000 00000000 00000000 00191000 …|  PseudoDmaDirect2d src=dge1+0x80[256x128]/0x80.float16, dst=sb[p0]+0x37f00[262144x128]/0x80.float16, sem=25
