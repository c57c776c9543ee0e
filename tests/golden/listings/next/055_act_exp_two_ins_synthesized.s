; listing of next/055_act_exp_two_ins_synthesized.json: Exp with ins = [x, bias]: args[2] and args[3] are synthesized from the scale (1.0) and alpha (0.0) attributes (N-8); bytes equal 040.
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000  |  ActivationTableLoad set=0
00000040:  |21100000 00000000 00000000 01010300 …|  Activate func=Exp, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
