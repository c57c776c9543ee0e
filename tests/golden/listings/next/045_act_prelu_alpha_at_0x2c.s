; listing of next/045_act_prelu_alpha_at_0x2c.json: Prelu with alpha 0.25: the only function whose args[3] reaches the wire (+0x0C kind, +0x2C value).
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000  |  ActivationTableLoad set=0
00000040:  |21100000 00000000 00000000 01010300 …|  Activate func=Prelu, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=imm, alpha=0.25:float32, acc=ZeroAccumulate
