; listing of sp/076_sync_evt_clear_plus_evt_set.json: evt_set_clear wait + evt_set update is allowed.
.target gen2
.stream sp
00000000:  |a7100000 071e111f 01000000 01080100 …|  Move.imm dst=r1, imm=7:int32, wait evt30 / upd evt31=1
