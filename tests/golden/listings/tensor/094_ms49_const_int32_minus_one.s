; listing of tensor/094_ms49_const_int32_minus_one.json: Memset Const int32 -1: the constant is a value in the dst dtype (D-29), so the fill is its two's-complement bits 0xFFFFFFFF.
.target gen2
.stream dve
00000000:  |49100000 00000000 00000000 00000000 …|  Memset dst=sb[p0:128].int32, fill=-1:int32
