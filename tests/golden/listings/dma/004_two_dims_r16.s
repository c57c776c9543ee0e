; listing of dma/004_two_dims_r16.json: A 2-D DMA (num1 > 1): of the two dims besides the run, dim 0 is the inner, dim 1 the outer (R-16 default).
.target gen3
.stream sp
00000000:  |d4100000 00000000 00000000 00081000 …|  PseudoDmaDirect2d src=var1[1024x2][256x64]/0x100.float16, dst=sb[p0]+0x5000[262144x64][256x2]/0x100.float16, sem=8
