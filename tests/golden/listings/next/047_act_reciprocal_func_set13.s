; listing of next/047_act_reciprocal_func_set13.json: Activation Reciprocal (wire 129) after LoadActFuncSet(13 reciprocal_and_small).
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000 …|  ActivationTableLoad set=13
00000040:  |21100000 00000000 00000000 01010300 …|  Activate func=Reciprocal, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
