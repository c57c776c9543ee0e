; listing of next/081_ts_mult_add_two_immediates.json: x * (1/512) + 1e-6 on a [128,1] vector with two float32 immediates (the chapter §4.1 second worked bundle; RMSNorm mean+eps).
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=mult, op1=add, src=sb[p0:128]+0x8000.float32, dst=sb[p0:128]+0x8010.float32, s0=0.001953125:float32, s1=9.999999974752427e-07:float32
