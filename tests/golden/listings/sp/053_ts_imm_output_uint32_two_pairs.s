; listing of sp/053_ts_imm_output_uint32_two_pairs.json: TensorSave into an Output (DRAM) location with a two-pair AP and offset 5.
.target gen2
.stream sp
00000000:  |cd100000 00000000 00000000 09000a02 …|  PseudoTensorStore data=r7, var=12+0x14, m2d=[10x2][1x10].uint32
