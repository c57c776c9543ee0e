; listing of tensor/001_tt_add_f32_basic.json: Plain float32 TensorTensor add on DVE: header, dtype nibbles, ALU byte, partition count and three TENSOR3D slots with one free dim each.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa0a0480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
