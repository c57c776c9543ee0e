; listing of sp/016_alu_subtract_imm_int32_negative.json: RegisterAlu subtract with a negative int32 immediate: src dtype byte written (+0x0F 0, R-31), u32 two's-complement imm at +0x18.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 05080100 …|  AluOp.imm op=subtract, dst=r2, src1=r3, imm=-4:int32
