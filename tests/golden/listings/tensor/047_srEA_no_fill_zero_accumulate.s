; listing of tensor/047_srEA_no_fill_zero_accumulate.json: SelectReduce without a fill operand: flag 0, fill 0, fill dtype 0; acc ZeroAccumulate -> 3.
.target gen2
.stream dve
00000000:  |ea100000 00000000 00000000 00000000 …|  SelectReduce op=max, src=sb[p0:128][1x64].float32, dst=sb[p0:128]+0x200[1x64].float32, mask=sb[p0:128]+0x300[1x64].uint8, acc=ZeroAccumulate
