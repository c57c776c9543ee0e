; listing of tensor/023_tt_psum_bank_and_offset.json: PSUM ADDR4 = 0x2000000 + part<<15 + bank x 2048 + byte, with the element offset resolved over dims[1] (§5, D-5).
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa0a0440 …|  TensorTensorArithOp op=add, out=psum.b1[p0:64]+0x100[1x32].float32, in0=psum.b3[p5:64]+0xa0[1x32].float32, in1=sb[p0:64]+0x100[1x32].float32
