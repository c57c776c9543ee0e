; listing of tensor/018_tt_three_free_dims_innermost_first.json: AP [[512,32],[128,4],[32,4],[1,32]] fills all three TENSOR3D slots innermost first: (1,32),(32,4),(128,4) (D-6); 32 partitions.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa0a0820 …|  TensorTensorArithOp op=max, out=sb[p0:32]+0x1000[128x4][32x4][1x32].float32, in0=sb[p0:32][128x4][32x4][1x32].float32, in1=sb[p0:32]+0x800[128x4][32x4][1x32].float32
