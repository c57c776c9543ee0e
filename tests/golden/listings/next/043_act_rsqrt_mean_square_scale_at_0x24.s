; listing of next/043_act_rsqrt_mean_square_scale_at_0x24.json: RMSNorm step 2 (chapter §9): rstd = rsqrt(ss * (1/512) + 2^-20) with Rsqrt from set 14, under N-5=scale-at-0x24.
.target gen3
.decision N-2=ptr0-imm1-reg2
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000 …|  ActivationTableLoad set=14
00000040:  |21100000 00000000 00000000 01010301 …|  Activate func=Rsqrt, src=sb[p0:128]+0x8000.float32, dst=sb[p0:128]+0x8010.float32, bias=9.5367431640625e-07:float32, scale=0.001953125:float32, alpha=0.0:float32, acc=ZeroAccumulate
