; listing of next/002_tr_add_x_negate_bf16_to_f32_p32.json: Negated sum over X of a bf16 tile that starts at partition 32 (64 lanes), fp32 result: negate byte, lane count 64, ADDR4 partition bits.
.target gen2
.stream dve
00000000:  |42100000 00000000 00000000 00018000 …|  TensorReduceArithOp op=add, src=sb[p32:64]+0x100[1x256].bfloat16, dst=sb[p32:64]+0x9000.float32, axis=2, negate=1
