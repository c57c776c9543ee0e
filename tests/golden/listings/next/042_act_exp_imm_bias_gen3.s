; listing of next/042_act_exp_imm_bias_gen3.json: Exp with a compile-time bias 0.5 on gen3 (allowed from NeuronCore-v3, N-36).
.target gen3
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000  |  ActivationTableLoad set=0
00000040:  |21100000 00000000 00000000 01010301 …|  Activate func=Exp, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=0.5:float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
