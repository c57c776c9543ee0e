; listing of next/041_act_exp_bias_ptr_recommended_readings.json: Kernel 040 under the readings the verification recommends (N-5=scale-at-0x24, N-38=zero): the 0x21 bundle equals the chapter's original §3.1 worked bundle.
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream act
00000000:  |23100000 00000000 00000000 00000000  |  ActivationTableLoad set=0
00000040:  |21100000 00000000 00000000 00010300 …|  Activate func=Exp, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=1.0:float32, acc=ZeroAccumulate
