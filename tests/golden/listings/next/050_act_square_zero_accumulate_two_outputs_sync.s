; listing of next/050_act_square_zero_accumulate_two_outputs_sync.json: Square with acc ZeroAccumulate and two outputs (the RMSNorm sum of squares): 0x21 then 0x24; the wait rides the 0x21, the update the 0x24 (N-10).
.target gen2
.decision N-2=ptr0-imm1-reg2
.decision N-5=reserved-zero
.decision N-38=one
.stream act
00000000:  |23100000 00000000 00000000 00000000  |  ActivationTableLoad set=0
00000040:  |21100000 05030000 07000000 01010300 …|  Activate func=Square, src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x4000[1x512].bfloat16, bias=ptr(0x00008000):float32, scale=imm, alpha=0.0:float32, acc=ZeroAccumulate, wait sem3>=7
00000080:  |24100000 00001304 00000000 00000000 …|  ActivationReadAccumulator dst=sb[p0:128]+0x8010.float32, upd sem4++
