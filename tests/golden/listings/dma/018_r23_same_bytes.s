; listing of dma/018_r23_same_bytes.json: R-23=reserved: the bytes of 002 do not change (the offset-register bytes stay 0 (no register mode is encoded)).
.target gen3
.decision R-23=reserved
.stream pool
00000000:  |d4100000 00000000 00000000 00191000 …|  PseudoDmaDirect2d src=dge1+0x80[256x128]/0x80.float16, dst=sb[p0]+0x37f00[262144x128]/0x80.float16, sem=25
