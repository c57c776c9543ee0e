; listing of next/015_tr_is_equal_under_alu_lut_gate.json: Kernel 014 under N-14=alu-lut: any op the ALU LUT maps is accepted.
.target gen2
.decision N-14=alu-lut
.stream dve
00000000:  |42100000 00000000 00000000 00000000 …|  TensorReduceArithOp op=is_equal, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x8000.float32, axis=2
