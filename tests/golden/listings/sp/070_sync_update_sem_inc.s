; listing of sp/070_sync_update_sem_inc.json: sem_inc update: +0x06 = 0x13, index at +0x07, no value at +0x08.
.target gen2
.stream sp
00000000:  |a7100000 00001306 00000000 01080100 …|  Move.imm dst=r1, imm=7:int32, upd sem6++
