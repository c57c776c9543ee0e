; listing of next/048_act_gelu_apprx_tanh_from_psum_set11.json: GELU (tanh approximation) reading a PSUM bank, writing bf16 SBUF, after LoadActFuncSet(11) (the MLP recipe of §9).
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000 …|  ActivationTableLoad set=11
00000040:  |21100000 00000000 00000000 01010300 …|  Activate func=Gelu_apprx_tanh, src=psum.b0[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate
