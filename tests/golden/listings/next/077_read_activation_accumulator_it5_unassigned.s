; listing of next/077_read_activation_accumulator_it5_unassigned.json: The IT5 spelling ReadActivationAccumulator with engine Unassigned: same bytes, act stream (N-16).
.target gen2
.stream act
00000000:  |24100000 00000000 00000000 00000000 …|  ActivationReadAccumulator dst=sb[p0:128]+0x800c.float32
