; listing of tensor/064_tc46_two_free_dims.json: TensorCopy with equal dtypes is 0x46; two free dims fill TENSOR4D slots 0-1 innermost first, slots 2-3 get {1,1}.
.target gen2
.stream dve
00000000:  |46100000 00000000 00000000 00000000 …|  Copy src=sb[p0:64][64x8][1x64].float32, dst=sb[p0:64]+0x1000[64x8][1x64].float32
