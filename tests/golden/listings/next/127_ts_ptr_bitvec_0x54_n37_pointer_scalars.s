; listing of next/127_ts_ptr_bitvec_0x54_n37_pointer_scalars.json: x & m[p] on int32 with an int32 [P,1] pointer m under N-37=pointer-scalars: opcode 0x54 TensorScalarPtrBitvecOp.
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-37=pointer-scalars
.stream dve
00000000:  |54100000 00000000 00000000 00000000 …|  TensorScalarPtrBitvecOp op0=bitwise_and, src=sb[p0:128][1x64].int32, dst=sb[p0:128]+0x8000[1x64].int32, s0=ptr(0x00009000):int32, s1=ptr(0x00000000):int32
