; listing of dma/003_converting_sbuf_to_dge_real_pool5.json: A converting DMACopy (fp32 SBUF 0x4200 -> fp16 output0 through DGE entry 2) waiting s4 >= 2: the real matmul_small sg00 Pool[5].
.target gen3
.stream pool
00000000:  |d4100000 05040000 02000000 001b1000 …|  PseudoDmaDirect2d src=sb[p0]+0x4200[262144x128]/0x100.float32, dst=dge2[256x128]/0x80.float16, sem=27, wait sem4>=2
