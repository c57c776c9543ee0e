; listing of sp/011_mv64_imm_literal_pair_negative.json: 64-bit move into literal r30 uses r30/r31; int64 -1 -> 8 bytes ff.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 02080100 …|  Move.imm64 dst=r30:r31, imm=-1:int64
