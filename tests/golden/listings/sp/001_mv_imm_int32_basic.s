; listing of sp/001_mv_imm_int32_basic.json: 32-bit RegisterMove of an int32 immediate into r1: header, valid_num, dtype, src_mode, dst id, imm.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 01080100 …|  Move.imm dst=r1, imm=7:int32
