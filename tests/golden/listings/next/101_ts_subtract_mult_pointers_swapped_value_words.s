; listing of next/101_ts_subtract_mult_pointers_swapped_value_words.json: Kernel 080 under N-3=s1-0x28-s0-0x2c.
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-3=s1-0x28-s0-0x2c
.stream dve
00000000:  |43100000 00000000 00000000 00000000 …|  TensorScalarArithOp op0=subtract, op1=mult, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=ptr(0x00008000), s1=ptr(0x00008004)
