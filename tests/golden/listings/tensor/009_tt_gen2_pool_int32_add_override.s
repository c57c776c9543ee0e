; listing of tensor/009_tt_gen2_pool_int32_add_override.json: gen2 Pool engine with all-int32 add uses opcode 0x8A and ALU byte 0xC4 (D-13), in the pool stream.
.target gen2
.stream pool
00000000:  |8a100000 00000000 00000000 8808c480 …|  TensorTensorIntAdd op=add_int, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
