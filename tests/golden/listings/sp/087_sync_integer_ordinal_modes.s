; listing of sp/087_sync_integer_ordinal_modes.json: Sync modes given as integer ordinals (wait 1 = sem_ge_imm -> 0x05, update 3 = sem_inc -> 0x13) map through the tables.
.target gen2
.stream sp
00000000:  |a7100000 05041305 02000000 01080100 …|  Move.imm dst=r1, imm=7:int32, wait sem4>=2 / upd sem5++
