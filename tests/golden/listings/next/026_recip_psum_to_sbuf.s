; listing of next/026_recip_psum_to_sbuf.json: Reciprocal reading PSUM (bank 2 + 0x40) and writing SBUF.
.target gen2
.stream dve
00000000:  |48100000 00000000 00000000 40100002 …|  Reciprocal src=psum.b2[p0:128]+0x40[1x16].float32, dst=sb[p0:128]+0x2000[1x16].float32
