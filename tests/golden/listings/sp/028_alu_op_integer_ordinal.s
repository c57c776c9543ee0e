; listing of sp/028_alu_op_integer_ordinal.json: The ALU op given as the integer ordinal 19 maps through the table to 0x18 (not raw 0x13).
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 18080100 …|  AluOp.imm op=not_equal, dst=r29, src1=r30, imm=0:int32
