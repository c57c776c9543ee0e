; listing of sp/054_ts_reg_form_dram_gen2.json: TensorSave REG form (register_ap r14 on a DRAM set) on gen2: opcode 0xAB, marker 0x80, data r15.
.target gen2
.stream sp
00000000:  |ab100000 00000000 00000000 08000101 …|  TensorStore data=r15, addr=r14, m2d=[0x1][1x1].int32
