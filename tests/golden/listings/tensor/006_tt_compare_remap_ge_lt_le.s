; listing of tensor/006_tt_compare_remap_ge_lt_le.json: Compare ALU ops use the re-mapped wire bytes of §2.2 (is_ge 0x14, is_lt 0x16, is_le 0x15) on opcode 0x41 with a uint8 output.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa031480 …|  TensorTensorArithOp op=is_ge, out=sb[p0:128]+0x200[1x64].uint8, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
00000040:  |41100000 00000000 00000000 aa031680 …|  TensorTensorArithOp op=is_lt, out=sb[p0:128]+0x200[1x64].uint8, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
00000080:  |41100000 00000000 00000000 aa031580 …|  TensorTensorArithOp op=is_le, out=sb[p0:128]+0x200[1x64].uint8, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
