; listing of next/080_ts_subtract_mult_two_pointers.json: (x - mean) * rstd with two [128,1] fp32 pointer scalars (the chapter §4.1 first worked bundle; LayerNorm).
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=subtract, op1=mult, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=ptr(0x00008000), s1=ptr(0x00008004)
