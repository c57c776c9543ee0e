; listing of sp/039_tl_imm_int64_register_pair.json: 64-bit TensorLoad: dtype 0x08, num_elem[0] doubled, step unchanged, register pair lo/hi at +0x20/+0x21, var_offset uses size 8.
.target gen2
.stream sp
00000000:  |ce100000 00000000 00000000 08000601 …|  PseudoTensorLoad data=r22, var=3+0x10, m2d=[0x1][1x6].int32, hi_or_offset=r23
