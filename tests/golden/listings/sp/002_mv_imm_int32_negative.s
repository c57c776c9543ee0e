; listing of sp/002_mv_imm_int32_negative.json: Negative int32 immediate is written as its 32-bit two's-complement pattern.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 01080100 …|  Move.imm dst=r2, imm=-2:int32
