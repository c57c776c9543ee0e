; listing of sp/052_ts_imm_dram_gen2_int32.json: TensorSave IMM form of r6 into a DRAM variable on gen2: opcode 0xCD, allowed (D-11).
.target gen2
.stream sp
00000000:  |cd100000 00000000 00000000 08000101 …|  PseudoTensorStore data=r6, var=4, m2d=[0x1][1x1].int32
