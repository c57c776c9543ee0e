; listing of control/007_nop_wait_real_pool6.json: A NoOp waiting s27 >= 16 (the last output DMA): the real matmul_small sg00 Pool[6].
.target gen3
.stream pool
00000000:  |a4100000 051b0000 10000000 00000000  |  Nop wait sem27>=16
