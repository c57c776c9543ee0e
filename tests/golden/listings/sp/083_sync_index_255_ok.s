; listing of sp/083_sync_index_255_ok.json: Index 255 (the largest) is accepted for both wait and update.
.target gen2
.stream sp
00000000:  |a7100000 07ff13ff 00000000 01080100 …|  Move.imm dst=r1, imm=7:int32, wait evt255 / upd sem255++
