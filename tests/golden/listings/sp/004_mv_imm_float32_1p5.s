; listing of sp/004_mv_imm_float32_1p5.json: float32 immediate 1.5 is bit-cast to its IEEE-754 bits 0x3FC00000; dtype 0x0A.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 010a0100 …|  Move.imm dst=r3, imm=1.5:float32
