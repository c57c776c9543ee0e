; listing of tensor/020_tt_zero_step_broadcast.json: A free step of 0 (broadcast) is written unchanged as 0x0000 with its count; there is no broadcast flag.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa0a0680 …|  TensorTensorArithOp op=mult, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[0x64].float32
