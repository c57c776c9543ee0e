; listing of next/010_tr_apply_transpose_arith_0x83.json: apply_transpose selects 0x83 (encode only; the simulator refuses it, chapter §5.1).
.target gen2
.stream dve
00000000:  |83100000 00000000 00000000 00000000 …|  TransposeTensorReduceArithOp op=add, src=sb[p0:32][1x32].float32, dst=sb[p0:32]+0x8000.float32, axis=2
