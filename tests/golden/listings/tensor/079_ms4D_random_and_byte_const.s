; listing of tensor/079_ms4D_random_and_byte_const.json: Memset Random encodes 0x4D with a zero fill; a uint8 Const memset accepts 0xFF (upper 24 bits zero).
.target gen2
.stream dve
00000000:  |4d100000 00000000 00000000 00000000 …|  Rng dst=sb[p0:128][1x64].uint32, fill=0:uint32
00000040:  |49100000 00000000 00000000 00000000 …|  Memset dst=sb[p0:128]+0x200[1x64].uint8, fill=255:uint8
