; listing of next/102_ts_pointer_scalar_partition32.json: x - m on 64 partitions starting at 32 with a pointer scalar: the pointer word (N-6 default ADDR4).
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=subtract, src=sb[p32:64][1x64].float32, dst=sb[p32:64]+0x4000[1x64].float32, s0=ptr(0x00808000)
