; listing of sp/007_mv_imm_float32_negative_zero.json: float32 immediate -0.0 keeps its sign bit: 0x80000000 (bit-cast, not numeric conversion).
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 010a0100 …|  Move.imm dst=r6, imm=-0.0:float32
