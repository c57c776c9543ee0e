; listing of next/108_tscache_reduce_0x9a.json: TensorScalarCache mode Reduce -> 0x9A (one output, no 0x9B).
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |9a100000 00000000 00000000 03000000 …|  TensorScalarCacheReduce op0=mult, op1=max, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=2.0:float32, acc=ZeroAccumulate
