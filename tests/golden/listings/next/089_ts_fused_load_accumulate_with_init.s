; listing of next/089_ts_fused_load_accumulate_with_init.json: One output with acc LoadAccumulate and a reduce init (s1): 0x9A, no 0x9B.
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |9a100000 00000000 00000000 04000000 …|  TensorScalarCacheReduce op0=mult, op1=max, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=2.0:float32, s1=1.0:float32, acc=LoadAccumulate
