; listing of pe/006_r11_book_accu_flags.json: R-11 alternative (the book): an interior Matmul carries ACCU 0x04, the last 0x06.
.target gen3
.decision R-11=book-accu
.stream pe
00000000:  |02100000 00001305 00000000 00000000 …|  Matmul moving=sb[p0:128]+0x37f00[1x64].float16, psum=psum.b0[p0:128][1x64], flags=middle, upd sem5++
00000040:  |02100000 00001305 00000000 00000000 …|  Matmul moving=sb[p0:128]+0x37f00[1x64].float16, psum=psum.b0[p0:128][1x64], flags=last, upd sem5++
