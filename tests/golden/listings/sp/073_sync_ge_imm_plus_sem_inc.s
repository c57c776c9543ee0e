; listing of sp/073_sync_ge_imm_plus_sem_inc.json: sem_ge_imm wait + sem_inc update (the barrier pattern) is allowed: +0x08 = threshold.
.target gen2
.stream sp
00000000:  |a7100000 05011302 05000000 01080100 …|  Move.imm dst=r1, imm=7:int32, wait sem1>=5 / upd sem2++
