; listing of sp/005_mv_imm_float32_neg_0p1.json: float32 immediate -0.1 (not exactly representable) -> nearest float32 bits 0xBDCCCCCD.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 010a0100 …|  Move.imm dst=r4, imm=-0.10000000149011612:float32
