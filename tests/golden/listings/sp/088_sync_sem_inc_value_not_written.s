; listing of sp/088_sync_sem_inc_value_not_written.json: A sem_inc update that carries "value": 1 still writes nothing at +0x08.
.target gen2
.stream sp
00000000:  |a7100000 00001306 00000000 01080100 …|  Move.imm dst=r1, imm=7:int32, upd sem6++
