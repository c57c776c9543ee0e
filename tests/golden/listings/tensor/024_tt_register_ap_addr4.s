; listing of tensor/024_tt_register_ap_addr4.json: register_ap operands encode ADDR4 as 0x80000000 | register id (literal r5 and a named register), steps/counts still packed.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa0a0480 …|  TensorTensorArithOp op=add, out=r17[:128][1x64].float32, in0=r5[:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
