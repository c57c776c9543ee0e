; listing of sp/056_ts_imm_uint64_pair.json: uint64 TensorSave: dtype written as wire(int32) 0x08 (not uint64's 0x01), doubled num, pair [2,3].
.target gen2
.stream sp
00000000:  |cd100000 00000000 00000000 08000201 …|  PseudoTensorStore data=r2, var=6+0x8, m2d=[0x1][1x2].int32, hi_or_offset=r3
