; listing of next/009_tr_bitwise_or_int32_bitvec_opcode.json: Bitwise-or reduce of int32 over X: the bit-vector opcode 0x52.
.target gen2
.stream dve
00000000:  |52100000 00000000 00000000 00000000 …|  TensorReduceBitvecOp op=bitwise_or, src=sb[p0:128][1x64].int32, dst=sb[p0:128]+0x8000.int32, axis=2
