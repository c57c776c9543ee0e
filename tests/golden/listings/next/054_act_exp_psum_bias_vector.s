; listing of next/054_act_exp_psum_bias_vector.json: Exp with the bias vector in PSUM bank 2 (a PSUM pointer is legal: "ISA immediate pointer should only be SB/PSUM").
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000  |  ActivationTableLoad set=0
00000040:  |21100000 00000000 00000000 01010300 …|  Activate func=Exp, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x02001000):float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
