; listing of tensor/077_ms49_const_f32_sync.json: Memset Const float32 1.0: opcode 0x49, element count, dtype, partitions, the constant 1.0 as its float32 bits and TENSOR4D dst; evt_set_clear wait + sem_add_imm update (D-3).
.target gen2
.stream dve
00000000:  |49100000 07021507 03000000 00000000 …|  Memset dst=sb[p0:128][1x64].float32, fill=1.0:float32, wait evt2 / upd sem7+=3
