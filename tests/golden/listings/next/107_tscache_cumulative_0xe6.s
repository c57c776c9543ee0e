; listing of next/107_tscache_cumulative_0xe6.json: Running sum of 2x along the free axis (tensor_scalar_cumulative): TensorScalarCache mode Cumulative -> 0xE6.
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |e6100000 00000000 00000000 03000000 …|  TensorScalarCacheCumulative op0=mult, op1=add, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=2.0:float32, acc=ZeroAccumulate
