; listing of next/104_ts_mult_add_immediates_enum_kind_order.json: Kernel 081 under N-2=imm0-reg1-ptr2 (ENUM's inferred IMM_SRC names): immediate kind 0.
.target gen2
.decision N-2=imm0-reg1-ptr2
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=mult, op1=add, src=sb[p0:128]+0x8000.float32, dst=sb[p0:128]+0x8010.float32, s0=0.001953125:float32, s1=9.999999974752427e-07:float32
