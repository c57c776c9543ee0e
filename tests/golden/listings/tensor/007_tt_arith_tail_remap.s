; listing of tensor/007_tt_arith_tail_remap.json: ALU ordinals 26..29 encode to the non-identity bytes pow 0x1A, mod 0x1B, rsqrt 0x1D, abs 0x19.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa0a1a80 …|  TensorTensorArithOp op=pow, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
00000040:  |41100000 00000000 00000000 aa0a1b80 …|  TensorTensorArithOp op=mod, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
00000080:  |41100000 00000000 00000000 aa0a1d80 …|  TensorTensorArithOp op=rsqrt, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
000000c0:  |41100000 00000000 00000000 aa0a1980 …|  TensorTensorArithOp op=abs, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
