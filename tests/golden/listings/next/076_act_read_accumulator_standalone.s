; listing of next/076_act_read_accumulator_standalone.json: Standalone ActivationReadAccumulator (IT101) into fp32 [128,1] (the chapter §3.2 worked bundle). No LoadActFuncSet needed: N-35 applies to Activation only.
.target gen2
.stream act
00000000:  |24100000 00000000 00000000 00000000 …|  ActivationReadAccumulator dst=sb[p0:128]+0x800c.float32
