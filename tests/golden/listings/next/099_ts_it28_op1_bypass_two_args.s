; listing of next/099_ts_it28_op1_bypass_two_args.json: IT28 with op1 bypass lowers to 2 arguments (N-20 default): bytes equal 082.
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=add, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=1.0:float32
