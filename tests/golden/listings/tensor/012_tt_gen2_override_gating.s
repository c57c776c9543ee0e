; listing of tensor/012_tt_gen2_override_gating.json: The D-13 override needs engine Pool AND all three operands int32: DVE int32, Pool float32 and Pool int32->float32 adds stay 0x41/0x04.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 88080480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].int32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
.stream pool
00000000:  |41100000 00000000 00000000 aa0a0480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
00000040:  |41100000 00000000 00000000 880a0480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].int32, in1=sb[p0:128]+0x100[1x64].int32
