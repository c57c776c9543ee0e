; listing of next/085_ts_bitwise_and_int32_0x53.json: x & 0xFF on int32: bit-vector opcode 0x53 with an int32 immediate.
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |53100000 00000000 00000000 00000000 …|  TensorScalarBitvecOp op0=bitwise_and, src=sb[p0:128][1x64].int32, dst=sb[p0:128]+0x8000[1x64].int32, s0=255:int32, s1=ptr(0x00000000):int32
