; listing of tensor/043_cpE8_scalar_float32.json: CopyPredicated with an imm_value src encodes 0xE8: polarity 1 for reverse_pred false, float32 bits of -3.5 at +0x2B.
.target gen2
.stream dve
00000000:  |e8100000 00000000 00000000 00000000 …|  CopyPredicatedScalar dst=sb[p0:128]+0x200[1x64].float32, mask=sb[p0:128]+0x300[1x64].uint8, scalar=-3.5:float32, polarity=1
