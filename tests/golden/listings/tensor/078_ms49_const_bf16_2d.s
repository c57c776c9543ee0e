; listing of tensor/078_ms49_const_bf16_2d.json: Memset Const bfloat16 over 64 partitions x (4 x 32): count 128, constant -5.0 (bfloat16 bits 0xC0A0), two TENSOR4D slots.
.target gen2
.stream dve
00000000:  |49100000 00000000 00000000 00000000 …|  Memset dst=sb[p0:64][32x4][1x32].bfloat16, fill=-5.0:bfloat16
