; listing of next/005_tr_xy_with_degenerate_pair_counts_packed.json: Axis XY over a [128, 1, 16] tile: the size-1 pair is dropped by D-6, so the wire axis counts the one packed reduced slot (N-13 default).
.target gen2
.stream dve
00000000:  |42100000 00000000 00000000 00000000 …|  TensorReduceArithOp op=add, src=sb[p0:128][1x16].float32, dst=sb[p0:128]+0x8000.float32, axis=2
