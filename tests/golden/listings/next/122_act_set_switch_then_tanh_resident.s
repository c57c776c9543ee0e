; listing of next/122_act_set_switch_then_tanh_resident.json: Exp under set 0, then LoadActFuncSet(11) and Gelu_apprx_tanh and Tanh (tanh is also in set 11): five act bundles in program order.
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000  |  ActivationTableLoad set=0
00000040:  |21100000 00000000 00000000 01010300 …|  Activate func=Exp, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
00000080:  |23100000 00000000 00000000 00000000 …|  ActivationTableLoad set=11
000000c0:  |21100000 00000000 00000000 01010300 …|  Activate func=Gelu_apprx_tanh, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
00000100:  |21100000 00000000 00000000 01010300 …|  Activate func=Tanh, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
