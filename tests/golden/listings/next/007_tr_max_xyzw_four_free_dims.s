; listing of next/007_tr_max_xyzw_four_free_dims.json: Max over all four free dims of a [128, 2, 2, 2, 4] tile: every input slot used, wire axis 5.
.target gen2
.stream dve
00000000:  |42100000 00000000 00000000 00000000 …|  TensorReduceArithOp op=max, src=sb[p0:128][16x2][8x2][4x2][1x4].float32, dst=sb[p0:128]+0x8000.float32, axis=5
