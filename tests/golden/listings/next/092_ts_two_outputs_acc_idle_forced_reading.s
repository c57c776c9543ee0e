; listing of next/092_ts_two_outputs_acc_idle_forced_reading.json: Kernel 091 under N-18=zero-accumulate: encoded as ZeroAccumulate (the compiler's own fallback).
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-18=zero-accumulate
.stream dve
00000000:  |9a100000 00000000 00000000 03000000 …|  TensorScalarCacheReduce op0=mult, op1=add, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=2.0:float32, acc=ZeroAccumulate
00000040:  |9b100000 00000000 00000000 00000000 …|  DveReadAccumulator dst=sb[p0:128]+0x8020.float32
