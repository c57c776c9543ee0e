; listing of tensor/010_tt_gen2_pool_int32_mult_override.json: gen2 Pool engine with all-int32 mult uses opcode 0x8E and ALU byte 0xC5 (D-13), in the pool stream.
.target gen2
.stream pool
00000000:  |8e100000 00000000 00000000 8808c580 …|  TensorTensorIntMult op=mult_int, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
