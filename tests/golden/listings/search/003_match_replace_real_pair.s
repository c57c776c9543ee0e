; listing of search/003_match_replace_real_pair.json: MatchReplace (IT90, imm_value -inf) of a top-k fold: strike the 8 values a Max8 found (partitions 64..122) in the 929-element data, in place; two bundles, MatchValueLoad 0x6D of the values then MatchReplace8 0x6F of the data: the real pair of BIR instruction I-20387-0, byte for byte.
.target gen2
.stream dve
00000000:  |6d100000 05060000 78190000 00000000 …|  MatchValueLoad src=sb[p64:59]+0x2f168[1x8].float32, wait sem6>=6520
00000040:  |6f100000 00001306 00000000 40ce0101 …|  MatchReplace8 src=sb[p64:59]+0x1ce40[1x929].float32, dst=sb[p64:59]+0x1ce40[1x929].float32, imm=-inf:float32, upd sem6++
