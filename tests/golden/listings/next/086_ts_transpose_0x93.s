; listing of next/086_ts_transpose_0x93.json: apply_transpose on an arithmetic TensorScalarPtr selects 0x93.
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |93100000 00000000 00000000 00000000 …|  TransposeTensorScalarArithOp op0=mult, src=sb[p0:32][1x32].float32, dst=sb[p0:32]+0x1000[1x32].float32, s0=2.0:float32
