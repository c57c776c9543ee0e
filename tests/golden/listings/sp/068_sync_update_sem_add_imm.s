; listing of sp/068_sync_update_sem_add_imm.json: sem_add_imm update on a TensorSave: +0x06 = 0x15, +0x08 = 2.
.target gen2
.stream sp
00000000:  |cd100000 00001504 02000000 08000101 …|  PseudoTensorStore data=r6, var=4, m2d=[0x1][1x1].int32, upd sem4+=2
