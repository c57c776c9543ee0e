; listing of dma/006_r14_book_copy.json: R-14 alternative: the book's sync_command 3 (COPY) at +0x0F.
.target gen3
.decision R-14=book-copy
.stream sp
00000000:  |d4100000 00000000 00000000 00081003 …|  PseudoDmaDirect2d src=var4[256x128]/0x100.float16, dst=sb[p0]+0x37b00[262144x128]/0x100.float16, sem=8, sync_command=3
