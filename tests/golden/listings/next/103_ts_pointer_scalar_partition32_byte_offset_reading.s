; listing of next/103_ts_pointer_scalar_partition32_byte_offset_reading.json: x - m on 64 partitions starting at 32 with a pointer scalar: the pointer word under N-6=byte-offset.
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-6=byte-offset
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=subtract, src=sb[p32:64][1x64].float32, dst=sb[p32:64]+0x4000[1x64].float32, s0=ptr(0x00008000)
