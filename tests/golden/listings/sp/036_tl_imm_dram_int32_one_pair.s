; listing of sp/036_tl_imm_dram_int32_one_pair.json: TensorLoad IMM form (physical_ap in DRAM) of one int32 into r8: opcode 0xCE, var_id from tensor_id, one-pair m2d.
.target gen2
.stream sp
00000000:  |ce100000 00000000 00000000 08000101 …|  PseudoTensorLoad data=r8, var=5, m2d=[0x1][1x1].int32
