; listing of tensor/019_tt_num1_pair_dropped.json: Free pairs with num==1 are dropped before packing and before the dimension check: 4 free pairs with one degenerate fit TENSOR3D (D-6).
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa0a0480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x400[1x64].float32, in0=sb[p0:128][64x2][4x8][1x4].float32, in1=sb[p0:128]+0x200[1x64].float32
