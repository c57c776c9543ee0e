; listing of sp/040_tl_imm_offset_register_access.json: TensorLoad IMM form with an offset operand (register_access r12): its id goes to +0x21 only.
.target gen2
.stream sp
00000000:  |ce100000 00000000 00000000 09000101 …|  PseudoTensorLoad data=r8, var=5, m2d=[0x1][1x1].uint32, hi_or_offset=r12
