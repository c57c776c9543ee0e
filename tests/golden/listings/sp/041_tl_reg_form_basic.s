; listing of sp/041_tl_reg_form_basic.json: TensorLoad REG form (register_ap regref r7): opcode 0xAA, +0x10 address register, +0x17 = 0x80, no var_id/var_offset.
.target gen2
.stream sp
00000000:  |aa100000 00000000 00000000 08000101 …|  TensorLoad data=r9, addr=r7, m2d=[0x1][1x1].int32
