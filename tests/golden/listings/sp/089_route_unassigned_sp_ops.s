; listing of sp/089_route_unassigned_sp_ops.json: Unassigned RegisterMove/RegisterAlu/TensorLoad/TensorSave all go to the sp stream, in program order.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 01080100 …|  Move.imm dst=r1, imm=7:int32
00000040:  |a8100000 00000000 00000000 04010000 …|  AluOp.reg op=add, dst=r5, src1=r6, src2=r7
00000080:  |ce100000 00000000 00000000 08000101 …|  PseudoTensorLoad data=r8, var=5, m2d=[0x1][1x1].int32
000000c0:  |cd100000 00000000 00000000 08000101 …|  PseudoTensorStore data=r6, var=5, m2d=[0x1][1x1].int32
