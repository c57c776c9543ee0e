; listing of sp/069_sync_update_sem_sub_imm.json: sem_sub_imm update on a RegisterAlu (immediate path): +0x06 = 0x17, +0x08 = 3.
.target gen2
.stream sp
00000000:  |a8100000 00001705 03000000 05080100 …|  AluOp.imm op=subtract, dst=r2, src1=r3, imm=-4:int32, upd sem5-=3
