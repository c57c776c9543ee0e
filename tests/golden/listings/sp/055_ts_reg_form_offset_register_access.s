; listing of sp/055_ts_reg_form_offset_register_access.json: REG-form TensorSave with a register_access offset operand r16 in outs[1]: id at +0x11 and +0x21.
.target gen2
.stream sp
00000000:  |ab100000 00000000 00000000 09000301 …|  TensorStore data=r15, addr=r14, offset=r16, m2d=[0x1][2x3].uint32, hi_or_offset=r16
