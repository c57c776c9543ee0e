; listing of sp/074_sync_ge_reg_plus_sem_dec.json: sem_ge_reg wait naming a table register + sem_dec update is allowed: +0x08 = register id.
.target gen2
.stream sp
00000000:  |a8100000 850a140b 21000000 04010000 …|  AluOp.reg op=add, dst=r5, src1=r6, src2=r7, wait sem10>=r33 / upd sem11--
