; listing of tensor/021_tt_negative_steps.json: Negative free steps are written as two's-complement i16 (-1 -> ff ff, -16 -> f0 ff); the start address comes from the element offset.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa0a0480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128]+0xfc[-1x64].float32, in1=sb[p0:128]+0x1c0[-16x4][1x16].float32
