; listing of sp/021_alu_is_gt_imm.json: is_gt (ordinal 20) -> wire 0x13 on the immediate path with uint32 operands.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 13090100 …|  AluOp.imm op=is_gt, dst=r11, src1=r12, imm=100:uint32
