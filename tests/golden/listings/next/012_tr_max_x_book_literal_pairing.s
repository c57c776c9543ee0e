; listing of next/012_tr_max_x_book_literal_pairing.json: Kernel 001 under the N-12 alternative (book literal: free axis = 0x7C). Only +0x00 differs from 001.
.target gen2
.decision N-12=book-literal
.stream dve
00000000:  |7c100000 00000000 00000000 00000000 …|  CrossLaneReduceArith op=max, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x8000.float32, axis=2
