; listing of tensor/005_tt_compare_remap_eq_ne_gt.json: Compare ALU ops use the re-mapped wire bytes of §2.2 (is_equal 0x12, not_equal 0x18, is_gt 0x13) on opcode 0x41 with a uint8 output.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa031280 …|  TensorTensorArithOp op=is_equal, out=sb[p0:128]+0x200[1x64].uint8, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
00000040:  |41100000 00000000 00000000 aa031880 …|  TensorTensorArithOp op=not_equal, out=sb[p0:128]+0x200[1x64].uint8, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
00000080:  |41100000 00000000 00000000 aa031380 …|  TensorTensorArithOp op=is_gt, out=sb[p0:128]+0x200[1x64].uint8, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
