; listing of next/078_act_read_accumulator_tensor1d_at_0x30.json: Kernel 076 under N-11=tensor1d-0x30.
.target gen2
.decision N-11=tensor1d-0x30
.stream act
00000000:  |24100000 00000000 00000000 00000000 …|  ActivationReadAccumulator dst=sb[p0:128]+0x800c.float32
