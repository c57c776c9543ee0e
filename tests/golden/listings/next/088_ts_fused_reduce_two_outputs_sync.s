; listing of next/088_ts_fused_reduce_two_outputs_sync.json: y = 2x with the row sum into reduce_res (tensor_scalar_reduce): 0x9A + 0x9B, wait on the first and update on the last.
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |9a100000 05090000 02000000 03000000 …|  TensorScalarCacheReduce op0=mult, op1=add, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=2.0:float32, acc=ZeroAccumulate, wait sem9>=2
00000040:  |9b100000 0000130a 00000000 00000000 …|  DveReadAccumulator dst=sb[p0:128]+0x8020.float32, upd sem10++
