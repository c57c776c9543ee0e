; listing of sp/051_tl_num_255_boundary_ok.json: num_elem[0] = 255 is the largest count that fits the one-byte field.
.target gen2
.stream sp
00000000:  |ce100000 00000000 00000000 0800ff01 …|  PseudoTensorLoad data=r8, var=5, m2d=[0x1][1x255].int32
