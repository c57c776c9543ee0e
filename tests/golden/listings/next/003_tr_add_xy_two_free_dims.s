; listing of next/003_tr_add_xy_two_free_dims.json: Sum over XY of a [128, 4, 16] fp32 tile: two packed input slots and wire axis 3.
.target gen2
.stream dve
00000000:  |42100000 00000000 00000000 00000000 …|  TensorReduceArithOp op=add, src=sb[p0:128][16x4][1x16].float32, dst=sb[p0:128]+0x8000.float32, axis=3
