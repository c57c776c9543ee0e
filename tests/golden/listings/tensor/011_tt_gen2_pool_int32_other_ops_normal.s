; listing of tensor/011_tt_gen2_pool_int32_other_ops_normal.json: On gen2 the Pool int32 override applies only to add/mult: subtract, divide and bitwise_or keep the normal opcode and ALU byte.
.target gen2
.stream pool
00000000:  |41100000 00000000 00000000 88080580 …|  TensorTensorArithOp op=subtract, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
00000040:  |41100000 00000000 00000000 88080780 …|  TensorTensorArithOp op=divide, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
00000080:  |51100000 00000000 00000000 88080b80 …|  TensorTensorBitvecOp op=bitwise_or, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
