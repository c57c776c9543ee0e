; listing of tensor/014_tt_gen3_pool_int32_divide_and_normal.json: gen3: Pool int32 divide -> 0xC7; Pool int32 max and DVE int32 add take the normal ALU byte (D-21).
.target gen3
.stream pool
00000000:  |41100000 00000000 00000000 8808c780 …|  TensorTensorArithOp op=divide_int, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
00000040:  |41100000 00000000 00000000 88080880 …|  TensorTensorArithOp op=max, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
.stream dve
00000000:  |41100000 00000000 00000000 88080480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
