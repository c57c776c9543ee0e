; listing of sp/061_ts_reg_sbuf_arch_gen3_ok.json: REG-form TensorSave into an SB location set is allowed when the kernel's arch is gen3.
.target gen3
.stream sp
00000000:  |ab100000 00000000 00000000 08000101 …|  TensorStore data=r6, addr=r14, m2d=[0x1][1x1].int32
