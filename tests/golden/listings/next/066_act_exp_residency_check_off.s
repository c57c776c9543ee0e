; listing of next/066_act_exp_residency_check_off.json: Kernel 065 with the N-35 residency check switched off: only the 0x21 bundle.
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-35=off
.decision N-38=one
.stream act
00000000:  |21100000 00000000 00000000 01010300 …|  Activate func=Exp, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
