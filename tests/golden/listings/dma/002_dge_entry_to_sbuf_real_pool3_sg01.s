; listing of dma/002_dge_entry_to_sbuf_real_pool3_sg01.json: A DMACopy on Pool from y through DGE-table entry 1 (byte 0x80: columns 64..) to SBUF 0x37F00: the real matmul_small sg01 Pool[3].
.target gen3
.stream pool
00000000:  |d4100000 00000000 00000000 00191000 …|  PseudoDmaDirect2d src=dge1+0x80[256x128]/0x80.float16, dst=sb[p0]+0x37f00[262144x128]/0x80.float16, sem=25
