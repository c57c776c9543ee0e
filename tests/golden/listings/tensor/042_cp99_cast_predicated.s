; listing of tensor/042_cp99_cast_predicated.json: Tensor CopyPredicated whose dst dtype differs from src dtype encodes CastPredicated 0x99 in the same band.
.target gen2
.stream dve
00000000:  |99100000 00000000 00000000 a3060080 …|  CastPredicated dst=sb[p0:128]+0x200[1x64].bfloat16, src=sb[p0:128][1x64].float32, mask=sb[p0:128]+0x300[1x64].uint8
