; listing of sp/072_sync_update_sem_wr_imm.json: sem_wr_imm update: +0x06 = 0x19, +0x08 = 0xDEADBEEF little-endian.
.target gen2
.stream sp
00000000:  |a7100000 00001908 efbeadde 01080100 …|  Move.imm dst=r1, imm=7:int32, upd sem8=3735928559
