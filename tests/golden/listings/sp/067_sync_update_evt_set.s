; listing of sp/067_sync_update_evt_set.json: evt_set update: +0x06 = 0x11, +0x07 = index, value written at +0x08.
.target gen2
.stream sp
00000000:  |a7100000 00001109 01000000 01080100 …|  Move.imm dst=r1, imm=7:int32, upd evt9=1
