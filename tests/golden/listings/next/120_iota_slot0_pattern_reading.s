; listing of next/120_iota_slot0_pattern_reading.json: Kernel 118 under N-22=slot0-pattern (the book's "= 1" stores are defaults later overwritten).
.target gen2
.stream pool
00000000:  |7e100000 00000000 00000000 00000000 …|  Iota dst=sb[p0:128][1x64].int32, channel_multiplier=64, pstep0=1, pnum0=64, pstep1=1, pnum1=1, pstep2=1, pnum2=1, pstep3=1, pnum3=1
