; listing of sp/060_ts_imm_sbuf_target_gen3_ok.json: TensorSave into SBUF is allowed on gen3; --target gen3 overrides the kernel's arch gen2.
.target gen3
.stream sp
00000000:  |cd100000 00000000 00000000 08000101 …|  PseudoTensorStore data=r6, var=11, m2d=[0x1][1x1].int32
