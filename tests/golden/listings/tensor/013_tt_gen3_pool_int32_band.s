; listing of tensor/013_tt_gen3_pool_int32_band.json: gen3 Pool all-int32 add/subtract/mult keep opcode 0x41 with band ALU bytes 0xC4/0xC6/0xC5 (D-21).
.target gen3
.stream pool
00000000:  |41100000 00000000 00000000 8808c480 …|  TensorTensorArithOp op=add_int, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
00000040:  |41100000 00000000 00000000 8808c680 …|  TensorTensorArithOp op=subtract_int, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
00000080:  |41100000 00000000 00000000 8808c580 …|  TensorTensorArithOp op=mult_int, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
