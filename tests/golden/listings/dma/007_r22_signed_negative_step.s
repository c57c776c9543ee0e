; listing of dma/007_r22_signed_negative_step.json: R-22 alternative: a DMA reading rows in reverse (a negative row step) writes a two's-complement i32 step.
.target gen3
.decision R-22=signed
.stream sp
00000000:  |d4100000 00000000 00000000 00081000 …|  PseudoDmaDirect2d src=var4+0xfe00[-256x128]/0x100.float16, dst=sb[p0]+0x37b00[262144x128]/0x100.float16, sem=8
