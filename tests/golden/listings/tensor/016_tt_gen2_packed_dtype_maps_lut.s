; listing of tensor/016_tt_gen2_packed_dtype_maps_lut.json: On gen2 a packed dtype (float8_e4m3fn_x4) in TensorTensor is not refused (D-26 is gen3-only) and maps through the LUT to wire 0x0E.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 ee0e0480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].float8_e4m3, in0=sb[p0:128][1x64].float8_e4m3, in1=sb[p0:128]+0x100[1x64].float8_e4m3
