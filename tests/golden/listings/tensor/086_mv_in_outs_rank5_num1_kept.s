; listing of tensor/086_mv_in_outs_rank5_num1_kept.json: MoveShape with the AP in outs (is-output 1) and rank 5: all four free pairs used as written, the num==1 pair is not dropped.
.target gen2
.stream dve
00000000:  |b2100000 00000000 00000000 00010100 …|  MoveShape is_output=1, shape=[128x2][64x1][16x4][2x8]
