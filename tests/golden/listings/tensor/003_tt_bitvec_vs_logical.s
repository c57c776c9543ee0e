; listing of tensor/003_tt_bitvec_vs_logical.json: bitwise_and/bitwise_xor select opcode 0x51 while logical_and (arith class in §2.2) stays on 0x41; DVE int32 add-style ops get no override.
.target gen2
.stream dve
00000000:  |51100000 00000000 00000000 88080a80 …|  TensorTensorBitvecOp op=bitwise_and, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
00000040:  |41100000 00000000 00000000 88080d80 …|  TensorTensorArithOp op=logical_and, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
00000080:  |51100000 00000000 00000000 99090c80 …|  TensorTensorBitvecOp op=bitwise_xor, out=sb[p0:128]+0x200[1x64].uint32, in0=sb[p0:128][1x64].uint32, in1=sb[p0:128]+0x100[1x64].uint32
