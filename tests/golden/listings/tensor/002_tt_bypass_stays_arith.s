; listing of tensor/002_tt_bypass_stays_arith.json: ALU op bypass keeps TensorTensor on the arithmetic opcode 0x41 (D-12) with ALU byte 0x00.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa0a0080 …|  TensorTensorArithOp op=bypass, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
