; listing of tensor/040_cp72_basic.json: Tensor CopyPredicated with equal src/dst dtypes encodes 0x72: mask/src nibbles, dst dtype, mask partition count, dst/src/mask TENSOR3D.
.target gen2
.stream dve
00000000:  |72100000 00000000 00000000 a30a0080 …|  CopyPredicated dst=sb[p0:128]+0x200[1x64].float32, src=sb[p0:128][1x64].float32, mask=sb[p0:128]+0x300[1x64].uint8
