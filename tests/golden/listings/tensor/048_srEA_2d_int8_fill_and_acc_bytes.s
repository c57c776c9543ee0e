; listing of tensor/048_srEA_2d_int8_fill_and_acc_bytes.json: SelectReduce over two free dims fills both TENSOR2D slots; an int8 immediate fill 3 is written as 0x03; AddAccumulate -> 2, LoadAccumulate -> 4.
.target gen2
.stream dve
00000000:  |ea100000 00000000 00000000 00000000 …|  SelectReduce op=max, src=sb[p0:128][16x4][1x16].int8, dst=sb[p0:128]+0x200[16x4][1x16].int8, mask=sb[p0:128]+0x300[16x4][1x16].uint8, acc=AddAccumulate, use_fill=1, fill_dtype=int8, fill=0x3
00000040:  |ea100000 00000000 00000000 00000000 …|  SelectReduce op=max, src=sb[p0:128][16x4][1x16].int8, dst=sb[p0:128]+0x200[16x4][1x16].int8, mask=sb[p0:128]+0x300[16x4][1x16].uint8, acc=LoadAccumulate
