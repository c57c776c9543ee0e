; listing of tensor/075_routing_act_pe_unassigned.json: Engine routing: Activation -> act, PE -> pe, Unassigned (non-SP op) -> dve; each stream gets its own bundle.
.target gen2
.stream act
00000000:  |46100000 00000000 00000000 00000000 …|  Copy src=sb[p0:128][1x64].float32, dst=sb[p0:128]+0x200[1x64].float32
.stream pe
00000000:  |46100000 00000000 00000000 00010000 …|  Copy src=sb[p0:128]+0x100[1x64].float32, dst=sb[p0:128]+0x200[1x64].float32
.stream dve
00000000:  |46100000 00000000 00000000 00000000 …|  Copy src=sb[p0:128][1x64].float32, dst=sb[p0:128]+0x100[1x64].float32
