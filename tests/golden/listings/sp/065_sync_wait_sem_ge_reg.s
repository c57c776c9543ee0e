; listing of sp/065_sync_wait_sem_ge_reg.json: sem_ge_reg wait on a RegisterAlu: +0x04 = 0x85, +0x08 = the register id named by value "r9".
.target gen2
.stream sp
00000000:  |a8100000 85c80000 09000000 04010000 …|  AluOp.reg op=add, dst=r5, src1=r6, src2=r7, wait sem200>=r9
