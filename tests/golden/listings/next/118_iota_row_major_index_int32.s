; listing of next/118_iota_row_major_index_int32.json: Iota value = p*64 + x over int32 [128,64] (a flat row-major index), enabled with N-22=base-slot0-fixed; engine Unassigned -> pool (N-16).
.target gen2
.decision N-22=base-slot0-fixed
.stream pool
00000000:  |7e100000 00000000 00000000 00000000 …|  Iota dst=sb[p0:128][1x64].int32, channel_multiplier=64, pstep1=1, pnum1=64, pstep2=1, pnum2=1, pstep3=1, pnum3=1
