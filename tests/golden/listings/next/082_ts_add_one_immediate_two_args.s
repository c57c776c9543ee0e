; listing of next/082_ts_add_one_immediate_two_args.json: x + 1.0 with two arguments: +0x27 and +0x2C stay 0 (scalar1 absent).
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=add, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=1.0:float32
