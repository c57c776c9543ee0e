; listing of tensor/046_srEA_register_fill.json: SelectReduce with a register fill writes the register id at +0x27 and the register's dtype at +0x2B.
.target gen2
.stream dve
00000000:  |ea100000 00000000 00000000 00000000 …|  SelectReduce op=max, src=sb[p0:128][1x64].float32, dst=sb[p0:128]+0x200[1x64].float32, mask=sb[p0:128]+0x300[1x64].uint8, use_fill=1, fill_dtype=float32, fill=0xc
