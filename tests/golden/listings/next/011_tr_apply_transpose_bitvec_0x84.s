; listing of next/011_tr_apply_transpose_bitvec_0x84.json: apply_transpose with a bitvec op selects 0x84.
.target gen2
.stream dve
00000000:  |84100000 00000000 00000000 00000000 …|  TransposeTensorReduceBitvecOp op=bitwise_and, src=sb[p0:32][1x32].int32, dst=sb[p0:32]+0x8000.int32, axis=2
