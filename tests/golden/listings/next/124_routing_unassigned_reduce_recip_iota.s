; listing of next/124_routing_unassigned_reduce_recip_iota.json: Engine Unassigned: TensorReduce and Reciprocal go to dve in program order, Iota to pool (N-16; the NEFF DVE table enables 0x42/0x48 and not 0x7E).
.target gen2
.decision N-22=base-slot0-fixed
.stream dve
00000000:  |42100000 00000000 00000000 00000000 …|  TensorReduceArithOp op=add, src=sb[p0:128][1x8].float32, dst=sb[p0:128]+0x100.float32, axis=2
00000040:  |48100000 00000000 00000000 00010000 …|  Reciprocal src=sb[p0:128]+0x100.float32, dst=sb[p0:128]+0x100.float32
.stream pool
00000000:  |7e100000 00000000 00000000 00000000 …|  Iota dst=sb[p0:128]+0x200[1x8].int32, pstep1=1, pnum1=8, pstep2=1, pnum2=1, pstep3=1, pnum3=1
