; listing of sp/071_sync_update_sem_dec.json: sem_dec update on a REG-form TensorLoad: +0x06 = 0x14, no value.
.target gen2
.stream sp
00000000:  |aa100000 00001407 00000000 08000101 …|  TensorLoad data=r9, addr=r7, m2d=[0x1][1x1].int32, upd sem7--
