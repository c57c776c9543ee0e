; listing of next/019_tr_cross_lane_c_add_on_pool.json: Partition (C) sum of a [128, 8] tile into [1, 8]: cross-lane opcode 0x7C on the pool stream (engine Unassigned, N-16).
.target gen2
.stream pool
00000000:  |7c100000 00000000 00000000 00000000 …|  CrossLaneReduceArith op=add, src=sb[p0:128][1x8].float32, dst=sb[p0]+0x8000[1x8].float32, per_element=1
