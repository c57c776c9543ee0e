; listing of sp/043_tl_reg_form_int64.json: REG-form 64-bit TensorLoad into a named pair [24,25]: dtype 0x08, doubled num_elem[0], +0x11 = 0 (no offset operand).
.target gen2
.stream sp
00000000:  |aa100000 00000000 00000000 08000401 …|  TensorLoad data=r24, addr=r5, m2d=[0x1][1x4].int32, hi_or_offset=r25
