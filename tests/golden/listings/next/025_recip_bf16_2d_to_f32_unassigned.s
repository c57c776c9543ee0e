; listing of next/025_recip_bf16_2d_to_f32_unassigned.json: Reciprocal of a bf16 [64, 8, 8] tile into fp32, engine Unassigned (-> dve, N-16): two packed slots each side.
.target gen2
.stream dve
00000000:  |48100000 00000000 00000000 00000000 …|  Reciprocal src=sb[p0:64][8x8][1x8].bfloat16, dst=sb[p0:64]+0x1000[8x8][1x8].float32
