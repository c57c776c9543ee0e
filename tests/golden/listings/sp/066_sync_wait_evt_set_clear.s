; listing of sp/066_sync_wait_evt_set_clear.json: evt_set_clear wait on a TensorLoad: +0x04 = 0x07, +0x05 = index, +0x08 untouched.
.target gen2
.stream sp
00000000:  |ce100000 070c0000 00000000 08000101 …|  PseudoTensorLoad data=r8, var=5, m2d=[0x1][1x1].int32, wait evt12
