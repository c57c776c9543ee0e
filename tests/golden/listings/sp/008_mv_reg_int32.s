; listing of sp/008_mv_reg_int32.json: 32-bit register->register move r3 -> r4: src_mode 0, src id at +0x10, no immediate.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 01080000 …|  Move.reg dst=r4, src=r3, dtype=int32
