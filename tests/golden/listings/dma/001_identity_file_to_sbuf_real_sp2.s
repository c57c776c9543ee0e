; listing of dma/001_identity_file_to_sbuf_real_sp2.json: A DMACopy of the 128 x 128 fp16 identity (DRAM variable 4) to SBUF 0x37B00 on SP, completion semaphore 8: the real matmul_small sg00 SP[2].
.target gen3
.stream sp
00000000:  |d4100000 00000000 00000000 00081000 …|  PseudoDmaDirect2d src=var4[256x128]/0x100.float16, dst=sb[p0]+0x37b00[262144x128]/0x100.float16, sem=8
