; listing of sp/064_sync_wait_sem_ge_imm.json: sem_ge_imm wait: +0x04 = 0x05, +0x05 = index, +0x08 = threshold (u32 LE); update bytes stay 0.
.target gen2
.stream sp
00000000:  |a7100000 05030000 78563412 01080100 …|  Move.imm dst=r1, imm=7:int32, wait sem3>=305419896
