; listing of next/020_tr_cross_lane_xyzwc_average.json: Mean over every element of a [128, 8] tile (axis XYZWC): cross-lane flag 0 and the 1/(P·NEPP) scale word.
.target gen2
.stream pool
00000000:  |7c100000 00000000 00000000 00000000 …|  CrossLaneReduceArith op=average, src=sb[p0:128][1x8].float32, dst=sb[p0]+0x8000.float32, per_element=0, scale=0.0009765625:float32
