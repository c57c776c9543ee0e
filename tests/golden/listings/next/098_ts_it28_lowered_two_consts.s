; listing of next/098_ts_it28_lowered_two_consts.json: BIR TensorScalar (IT28, const0/const1) lowers to the IT29 form with two float32 immediates (N-20): bytes equal 081.
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=mult, op1=add, src=sb[p0:128]+0x8000.float32, dst=sb[p0:128]+0x8010.float32, s0=0.001953125:float32, s1=9.999999974752427e-07:float32
