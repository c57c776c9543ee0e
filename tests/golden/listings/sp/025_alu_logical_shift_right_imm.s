; listing of sp/025_alu_logical_shift_right_imm.json: logical_shift_right (bitvec class) -> wire 0x11; the ALU class does not change the SP opcode.
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 11090100 …|  AluOp.imm op=logical_shift_right, dst=r21, src1=r22, imm=3:uint32
