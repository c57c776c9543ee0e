; listing of sp/019_alu_is_lt_imm_mixed_dtypes.json: is_lt -> 0x16; immediate path with src1 int32 and dst uint32: +0x0D = wire(src1); +0x0F stays 0 (R-31: the immediate path writes no dst dtype).
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 16080100 …|  AluOp.imm op=is_lt, dst=r5, src1=r4, imm=10:int32
