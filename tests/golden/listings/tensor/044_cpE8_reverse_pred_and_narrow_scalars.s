; listing of tensor/044_cpE8_reverse_pred_and_narrow_scalars.json: 0xE8 with reverse_pred true writes polarity 0; an int8 -1 scalar is zero-extended to 0x000000FF; a bfloat16 1.0 scalar is 0x00003F80.
.target gen2
.stream dve
00000000:  |e8100000 00000000 00000000 00000000 …|  CopyPredicatedScalar dst=sb[p0:128]+0x200[1x64].int8, mask=sb[p0:128]+0x380[1x64].uint16, scalar=-1:int8
00000040:  |e8100000 00000000 00000000 00000000 …|  CopyPredicatedScalar dst=sb[p0:128]+0x200[1x64].bfloat16, mask=sb[p0:128]+0x300[1x64].uint8, scalar=1.0:bfloat16, polarity=1
