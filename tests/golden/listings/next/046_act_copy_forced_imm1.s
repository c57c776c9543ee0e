; listing of next/046_act_copy_forced_imm1.json: Copy (wire 128) takes the forced branch: +0x0C = 1, +0x2C = 0, whatever N-38 says.
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000  |  ActivationTableLoad set=0
00000040:  |21100000 00000000 00000000 01010300 …|  Activate func=Copy, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
