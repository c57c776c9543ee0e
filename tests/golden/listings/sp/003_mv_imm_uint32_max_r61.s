; listing of sp/003_mv_imm_uint32_max_r61.json: uint32 immediate 0xFFFFFFFF into the highest usable register r61; dtype byte 0x09.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 01090100 …|  Move.imm dst=r61, imm=4294967295:uint32
