; listing of next/087_ts_mult_register_scalar.json: x * r7: a register scalar (kind 2, value = register id).
.target gen2
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=mult, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=r7
