; listing of tensor/045_srEA_imm_fill_zero.json: SelectReduce (op max) with a float32 +0.0 immediate fill: 2-D band with src@+0x0C, dst@+0x18, mask@+0x30, fill flag 1, fill dtype float32.
.target gen2
.stream dve
00000000:  |ea100000 00000000 00000000 00000000 …|  SelectReduce op=max, src=sb[p0:128][1x64].float32, dst=sb[p0:128]+0x200[1x64].float32, mask=sb[p0:128]+0x300[1x64].uint8, use_fill=1, fill_dtype=float32
