; listing of tensor/071_tc_gen3_sbuf_above_192k.json: On gen3 an SBUF operand at byte 196608..196863 is inside the 224 KiB partition and encodes ADDR4 0x00030000.
.target gen3
.stream dve
00000000:  |46100000 00000000 00000000 00000300 …|  Copy src=sb[p0:128]+0x30000[1x64].float32, dst=sb[p0:128]+0x200[1x64].float32
