; listing of tensor/063_select_cast_path_act.json: A Select whose on_false/on_true dtypes differ from dst lowers to 0x47 then 0x99 on the act stream; a wait-only sync lands on the first bundle (D-24).
.target gen2
.stream act
00000000:  |47100000 07020000 00000000 00010000 …|  Cast src=sb[p0:128]+0x100[1x64].bfloat16, dst=sb[p0:128]+0x200[1x64].float32, wait evt2
00000040:  |99100000 00000000 00000000 630a0080 …|  CastPredicated dst=sb[p0:128]+0x200[1x64].float32, src=sb[p0:128][1x64].bfloat16, mask=sb[p0:128]+0x300[1x64].uint8
