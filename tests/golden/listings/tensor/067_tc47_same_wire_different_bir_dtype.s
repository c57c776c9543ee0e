; listing of tensor/067_tc47_same_wire_different_bir_dtype.json: float8e4 -> float8_e4m3fn: both wire 0x0E, but the opcode compares raw BIR dtypes so it is 0x47.
.target gen2
.stream dve
00000000:  |47100000 00000000 00000000 00000000 …|  Cast src=sb[p0:128][1x64].float8_e4m3, dst=sb[p0:128]+0x200[1x64].float8_e4m3
