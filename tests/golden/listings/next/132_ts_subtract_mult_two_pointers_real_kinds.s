; listing of next/132_ts_subtract_mult_two_pointers_real_kinds.json: (x - mean) * rstd with two [128,1] fp32 pointer scalars under the real-bytes kind codes (N-2=per-byte: TensorScalar pointer = 1; 19,320 real 2.14 bundles have this op pair with both kinds 1).
.target gen2
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=subtract, op1=mult, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=ptr(0x00008000), s1=ptr(0x00008004)
