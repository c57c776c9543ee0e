; listing of next/133_iota_real_yolox_column_block.json: Iota of a real bundle (yolox-trn1/MODULE_15847435347519622229.neff pool bundle 3, BIR I-12579-3, the HLO's iota s32[8400,80] dimension 1 column block of base 3) from its BIR form: base 3, pattern [[0,80],[5,16]] (outermost first), channel_multiplier 0, int32 [105 partitions x 1280]; the expected bytes are the real bundle's with its sync band (not in the BIR form) zero.
.target gen2
.stream pool
00000000:  |7e100000 00000000 00000000 03000000 …|  Iota dst=sb[p0:105]+0x5dc0[1x1280].int32, base=3, pstep0=5, pnum0=16, pstep1=0, pnum1=80, pstep2=1, pnum2=1, pstep3=1, pnum3=1
