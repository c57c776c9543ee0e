; listing of sp/037_tl_imm_two_pairs_offset_float32.json: Two-pair AP [[8,4],[2,3]] with offset 3: innermost pair -> num_elem[0]/step_elem[0], outer -> [1]; var_offset = offset x 4.
.target gen2
.stream sp
00000000:  |ce100000 00000000 00000000 0a000304 …|  PseudoTensorLoad data=r10, var=9+0xc, m2d=[8x4][2x3].float32
