; listing of sp/024_alu_mod_imm.json: mod (ordinal 27) -> wire 0x1B on the immediate path.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 1b080100 …|  AluOp.imm op=mod, dst=r19, src1=r20, imm=128:int32
