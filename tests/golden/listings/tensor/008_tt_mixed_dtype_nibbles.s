; listing of tensor/008_tt_mixed_dtype_nibbles.json: in0 bfloat16 goes to the low nibble (6), in1 float16 to the high nibble (7) of +0x0C; out float32 at +0x0D.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 760a0580 …|  TensorTensorArithOp op=subtract, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].bfloat16, in1=sb[p0:128]+0x100[1x64].float16
