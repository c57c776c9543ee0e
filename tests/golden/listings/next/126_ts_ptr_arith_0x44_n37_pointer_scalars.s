; listing of next/126_ts_ptr_arith_0x44_n37_pointer_scalars.json: The 080 kernel ((x - mean) * rstd with two [P,1] pointers) under N-37=pointer-scalars: opcode 0x44 TensorScalarPtrArithOp, every other byte as 080.
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-37=pointer-scalars
.stream dve
00000000:  |44100000 00000000 00000000 00000000 …|  TensorScalarPtrArithOp op0=subtract, op1=mult, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, s0=ptr(0x00008000), s1=ptr(0x00008004)
