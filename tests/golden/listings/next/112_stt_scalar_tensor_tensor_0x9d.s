; listing of next/112_stt_scalar_tensor_tensor_0x9d.json: (a0 * 0.5) + a1 with is_scalar_tensor_tensor: 0x9D under the N-21 slot reading (I).
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |9d100000 00000000 00000000 00100000 …|  ScalarTensorTensorArith op0=mult, op1=add, tensor0=sb[p0:128][1x64].float32, tensor1=sb[p0:128]+0x1000[1x64].float32, out=sb[p0:128]+0x2000[1x64].float32, scalar=0.5:float32
