; listing of next/119_iota_two_dim_pattern_base5_f32.json: Iota value = 5 + 8z + x over [128, 4, 8], written as float32 (N-22=base-slot0-fixed).
.target gen2
.decision N-22=base-slot0-fixed
.stream pool
00000000:  |7e100000 00000000 00000000 05000000 …|  Iota dst=sb[p0:128][1x32].float32, base=5, pstep1=1, pnum1=8, pstep2=8, pnum2=4, pstep3=1, pnum3=1
