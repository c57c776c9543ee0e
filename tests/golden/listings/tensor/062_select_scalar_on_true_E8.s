; listing of tensor/062_select_scalar_on_true_E8.json: A Select with a scalar on_true lowers to TensorCopy 0x46 then CopyPredicatedScalar 0xE8; an update-only sync lands on the last bundle (D-24).
.target gen2
.stream dve
00000000:  |46100000 00000000 00000000 00010000 …|  Copy src=sb[p0:128]+0x100[1x64].float32, dst=sb[p0:128]+0x200[1x64].float32
00000040:  |e8100000 00001906 07000000 00000000 …|  CopyPredicatedScalar dst=sb[p0:128]+0x200[1x64].float32, mask=sb[p0:128]+0x300[1x64].uint8, scalar=2.0:float32, polarity=1, upd sem6=7
