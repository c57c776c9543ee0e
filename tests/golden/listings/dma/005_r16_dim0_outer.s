; listing of dma/005_r16_dim0_outer.json: R-16 alternative: dim 0 is the outer of the two dims (the kernel of 004).
.target gen3
.decision R-16=dim0-outer
.stream sp
00000000:  |d4100000 00000000 00000000 00081000 …|  PseudoDmaDirect2d src=var1[256x64][1024x2]/0x100.float16, dst=sb[p0]+0x5000[256x2][262144x64]/0x100.float16, sem=8
