; listing of tensor/060_select_tensor_lowering_sync_split.json: Select lowers to TensorCopy 0x46 (dst <- on_false) then CopyPredicated 0x72 (on_true where predicate); the wait goes on the first bundle, the update on the last (D-24).
.target gen2
.stream dve
00000000:  |46100000 05030000 05000000 00010000 …|  Copy src=sb[p0:128]+0x100[1x64].float32, dst=sb[p0:128]+0x200[1x64].float32, wait sem3>=5
00000040:  |72100000 00001304 00000000 a30a0080 …|  CopyPredicated dst=sb[p0:128]+0x200[1x64].float32, src=sb[p0:128][1x64].float32, mask=sb[p0:128]+0x300[1x64].uint8, upd sem4++
