; listing of next/053_act_exp_bf16_bias_vector.json: Exp with a bf16 [128,1] bias vector: the bias dtype rides the high nibble of +0x20.
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000  |  ActivationTableLoad set=0
00000040:  |21100000 00000000 00000000 01010300 …|  Activate func=Exp, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):bfloat16, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
