; listing of sp/090_route_engines_to_streams.json: Register ops on every engine name (and engine ordinals) go to that engine's stream; each stream keeps program order.
.target gen2
.stream pool
00000000:  |a7100000 00000000 00000000 01080100 …|  Move.imm dst=r1, imm=1:int32
00000040:  |a7100000 00000000 00000000 01080100 …|  Move.imm dst=r8, imm=8:int32
.stream act
00000000:  |a8100000 00000000 00000000 04010000 …|  AluOp.reg op=add, dst=r2, src1=r2, src2=r2
.stream pe
00000000:  |a7100000 00000000 00000000 01080100 …|  Move.imm dst=r3, imm=3:int32
.stream dma
00000000:  |a7100000 00000000 00000000 01080100 …|  Move.imm dst=r4, imm=4:int32
.stream dve
00000000:  |a8100000 00000000 00000000 06010000 …|  AluOp.reg op=mult, dst=r5, src1=r5, src2=r5
.stream sp
00000000:  |a7100000 00000000 00000000 01080100 …|  Move.imm dst=r6, imm=6:int32
00000040:  |a7100000 00000000 00000000 01080100 …|  Move.imm dst=r7, imm=7:int32
