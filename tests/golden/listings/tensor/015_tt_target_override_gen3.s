; listing of tensor/015_tt_target_override_gen3.json: A kernel with arch gen2 encoded with --target gen3 follows D-21 (0x41/0xC5), not D-13 (0x8E).
.target gen3
.stream pool
00000000:  |41100000 00000000 00000000 8808c580 …|  TensorTensorArithOp op=mult_int, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
