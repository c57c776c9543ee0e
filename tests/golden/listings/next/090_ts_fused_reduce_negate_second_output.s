; listing of next/090_ts_fused_reduce_negate_second_output.json: As 088 without sync and with negate_second_output: 0x9B +0x21 = 1.
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |9a100000 00000000 00000000 03000000 …|  TensorScalarCacheReduce op0=mult, op1=add, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=2.0:float32, acc=ZeroAccumulate
00000040:  |9b100000 00000000 00000000 00000000 …|  DveReadAccumulator dst=sb[p0:128]+0x8020.float32, negated=1
