; listing of tensor/085_mv_in_ins_f32.json: MoveShape with the AP in ins: is-output 0, byte steps innermost first, unused steps = element size, unused counts = 1; Unassigned -> dve.
.target gen2
.stream dve
00000000:  |b2100000 00000000 00000000 00010100 …|  MoveShape shape=[4x1][4x1][64x4][4x16]
