; listing of next/131_act_exp_scale_2_real_readings.json: Exp with scale 2.0 and a compile-time bias 0.5 on gen3, the real-bytes readings: the scale is the float32 word at +0x24 with kind 0 (immediate) at +0x0D (N-5=scale-at-0x24, N-2=per-byte).
.target gen3
.stream act
00000000:  |23100000 00000000 00000000 00000000  |  ActivationTableLoad set=0
00000040:  |21100000 00000000 00000000 00000301 …|  Activate func=Exp, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=0.5:float32, scale=2.0:float32, acc=ZeroAccumulate
