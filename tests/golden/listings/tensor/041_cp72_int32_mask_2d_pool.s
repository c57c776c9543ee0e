; listing of tensor/041_cp72_int32_mask_2d_pool.json: 0x72 with explicit op bypass, an int32 mask, uint16 data over two free dims and 32 partitions, on the Pool stream.
.target gen2
.stream pool
00000000:  |72100000 00000000 00000000 58050020 …|  CopyPredicated dst=sb[p0:32]+0x200[16x4][1x16].uint16, src=sb[p0:32][16x4][1x16].uint16, mask=sb[p0:32]+0x400[16x4][1x16].int32
