; listing of next/128_tr_cross_lane_xyzwc_bitvec_xor.json: Bit-vector xor over every element (axis XYZWC) of an int32 [4, 3x2] tile on the Pool engine: the bit-vector cross-lane opcode 0x7D, command xor 5, cross-lane flag 0, no 1/N word.
.target gen2
.stream pool
00000000:  |7d100000 00000000 00000000 00010000 …|  CrossLaneReduceBitvec op=bitwise_xor, src=sb[p0:4]+0x100[2x3][1x2].int32, dst=sb[p0]+0x8000.int32, per_element=0
