; listing of sp/075_sync_evt_clear_plus_sem_wr_imm.json: evt_set_clear wait + value-carrying sem_wr_imm update is allowed: +0x08 = update value.
.target gen2
.stream sp
00000000:  |a7100000 07141915 09000000 01080100 …|  Move.imm dst=r1, imm=7:int32, wait evt20 / upd sem21=9
