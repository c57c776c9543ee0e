; listing of sp/006_mv_imm_float32_integer_literal.json: A float32 immediate written as the JSON integer 2 is still the float 2.0 -> bits 0x40000000.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 010a0100 …|  Move.imm dst=r5, imm=2.0:float32
