; listing of sp/010_mv64_imm_named_pair.json: 64-bit move of an int64 immediate into a named register pair [20,21]: valid_num 2, dtype 0x08, u64 immediate.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 02080100 …|  Move.imm64 dst=r20:r21, imm=4294967298:int64
