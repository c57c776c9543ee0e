; listing of next/004_tr_add_x_keeps_outer_dim.json: Sum over X only of a [128, 4, 16] tile -> [128, 4]: the outer free dim survives in the output.
.target gen2
.stream dve
00000000:  |42100000 00000000 00000000 00000000 …|  TensorReduceArithOp op=add, src=sb[p0:128][16x4][1x16].float32, dst=sb[p0:128]+0x8000[1x4].float32, axis=2
