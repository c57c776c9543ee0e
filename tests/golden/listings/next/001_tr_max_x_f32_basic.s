; listing of next/001_tr_max_x_f32_basic.json: TensorReduce max over X, fp32 [128,512] -> [128,1] on DVE (the chapter §5.1 worked bundle).
.target gen2
.stream dve
00000000:  |42100000 00000000 00000000 00000000 …|  TensorReduceArithOp op=max, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x8000.float32, axis=2
