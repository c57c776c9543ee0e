; listing of dma/016_r15_same_bytes.json: R-15=parts: the bytes of 002 do not change (the increment is written as given (16) under either reading of R-15).
.target gen3
.decision R-15=parts
.stream pool
00000000:  |d4100000 00000000 00000000 00191000 …|  PseudoDmaDirect2d src=dge1+0x80[256x128]/0x80.float16, dst=sb[p0]+0x37f00[262144x128]/0x80.float16, sem=25
