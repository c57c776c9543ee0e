; listing of tensor/061_select_scalar_on_false_memset_pool.json: A scalar on_false lowers to Memset Const with the scalar's bit pattern in the dst dtype (0.5 -> bf16 0x3F00), then 0x72; both bundles on the Select's Pool stream (D-17b).
.target gen2
.stream pool
00000000:  |49100000 00000000 00000000 00000000 …|  Memset dst=sb[p0:128]+0x200[1x64].bfloat16, fill=0.5:bfloat16
00000040:  |72100000 00000000 00000000 63060080 …|  CopyPredicated dst=sb[p0:128]+0x200[1x64].bfloat16, src=sb[p0:128][1x64].bfloat16, mask=sb[p0:128]+0x300[1x64].uint8
