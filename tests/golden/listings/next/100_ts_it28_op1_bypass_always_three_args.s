; listing of next/100_ts_it28_op1_bypass_always_three_args.json: Kernel 099 under N-20=always-3-args.
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-20=always-3-args
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=add, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=1.0:float32, s1=0.0:float32
