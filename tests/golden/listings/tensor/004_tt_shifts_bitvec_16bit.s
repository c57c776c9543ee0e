; listing of tensor/004_tt_shifts_bitvec_16bit.json: Shift ops take the bit-vector opcode 0x51, logical_xor stays 0x41; 16-bit integer dtype tags in the nibbles.
.target gen2
.stream dve
00000000:  |51100000 00000000 00000000 44040380 …|  TensorTensorBitvecOp op=arith_shift_right, out=sb[p0:128]+0x200[1x64].int16, in0=sb[p0:128][1x64].int16, in1=sb[p0:128]+0x100[1x64].int16
00000040:  |51100000 00000000 00000000 55051080 …|  TensorTensorBitvecOp op=logical_shift_left, out=sb[p0:128]+0x200[1x64].uint16, in0=sb[p0:128][1x64].uint16, in1=sb[p0:128]+0x100[1x64].uint16
00000080:  |41100000 00000000 00000000 55050f80 …|  TensorTensorArithOp op=logical_xor, out=sb[p0:128]+0x200[1x64].uint16, in0=sb[p0:128][1x64].uint16, in1=sb[p0:128]+0x100[1x64].uint16
