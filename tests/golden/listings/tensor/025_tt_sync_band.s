; listing of tensor/025_tt_sync_band.json: TensorTensor carries the sync band (D-3): sem_ge_imm + sem_dec, and sem_ge_reg (register id) + sem_inc on index 255; sem_inc/sem_dec write no value.
.target gen2
.stream dve
00000000:  |41100000 05031409 05000000 aa0a0480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32, wait sem3>=5 / upd sem9--
00000040:  |41100000 850a13ff 05000000 aa0a0480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32, wait sem10>=r5 / upd sem255++
