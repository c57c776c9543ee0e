; listing of next/084_ts_reverse1_subtract_divide.json: 2.0 / (x - 1.0): reverse1 only -> reverse pack 2.
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=subtract, op1=divide, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=1.0:float32, s1=2.0:float32, reverse1=1
