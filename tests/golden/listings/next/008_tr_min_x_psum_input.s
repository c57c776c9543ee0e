; listing of next/008_tr_min_x_psum_input.json: Min over X reading a PSUM bank on DVE (PSUM is legal for DVE): PSUM ADDR4.
.target gen2
.stream dve
00000000:  |42100000 00000000 00000000 00080002 …|  TensorReduceArithOp op=min, src=psum.b1[p0:128][1x512].float32, dst=sb[p0:128]+0x8000.float32, axis=2
