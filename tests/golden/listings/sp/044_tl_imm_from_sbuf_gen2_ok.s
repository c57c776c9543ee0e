; listing of sp/044_tl_imm_from_sbuf_gen2_ok.json: TensorLoad from SBUF on gen2 is allowed (no D-11 rule for loads); the AP's first pair is used as written (no partition handling).
.target gen2
.stream sp
00000000:  |ce100000 00000000 00000000 08000402 …|  PseudoTensorLoad data=r3, var=11, m2d=[256x2][1x4].int32
