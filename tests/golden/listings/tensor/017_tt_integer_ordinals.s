; listing of tensor/017_tt_integer_ordinals.json: Enum values given as integer ordinals (engine 1, op 6, dtype 15, acc 0) behave like their names: gen2 Pool int32 mult -> 0x8E/0xC5.
.target gen2
.stream pool
00000000:  |8e100000 00000000 00000000 8808c580 …|  TensorTensorIntMult op=mult_int, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
