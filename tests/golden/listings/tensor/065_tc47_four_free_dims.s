; listing of tensor/065_tc47_four_free_dims.json: TensorCopy float32 -> bfloat16 is 0x47; four free dims fill all TENSOR4D slots innermost first (1,8),(8,4),(32,4),(128,4).
.target gen2
.stream dve
00000000:  |47100000 00000000 00000000 00000000 …|  Cast src=sb[p0:128][128x4][32x4][8x4][1x8].float32, dst=sb[p0:128]+0x1000[128x4][32x4][8x4][1x8].bfloat16
