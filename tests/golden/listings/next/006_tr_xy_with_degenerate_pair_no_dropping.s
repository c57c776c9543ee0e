; listing of next/006_tr_xy_with_degenerate_pair_no_dropping.json: Same kernel as 005 under the N-13 alternative: input pairs not dropped, axis byte = axis + 2.
.target gen2
.decision N-13=no-dropping
.stream dve
00000000:  |42100000 00000000 00000000 00000000 …|  TensorReduceArithOp op=add, src=sb[p0:128][16x1][1x16].float32, dst=sb[p0:128]+0x8000.float32, axis=3
