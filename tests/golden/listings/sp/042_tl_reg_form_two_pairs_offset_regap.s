; listing of sp/042_tl_reg_form_two_pairs_offset_regap.json: REG-form TensorLoad with a two-pair AP and a register_ap offset operand: offset id at both +0x11 and +0x21.
.target gen2
.stream sp
00000000:  |aa100000 00000000 00000000 0a000502 …|  TensorLoad data=r9, addr=r4, offset=r13, m2d=[16x2][4x5].float32, hi_or_offset=r13
