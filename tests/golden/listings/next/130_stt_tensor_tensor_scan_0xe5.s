; listing of next/130_stt_tensor_tensor_scan_0xe5.json: The linear recurrence h[i] = a[i] * h[i-1] + b[i] (NKI tensor_tensor_scan, op0 mult, op1 add) with is_tensor_tensor_scan: 0xE5 on the dve stream (engine Unassigned, N-16); data0 bf16 in SBUF, data1 float32 in PSUM bank 2, the initial value a [P,1] float32 pointer (S-38).
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |e5100000 00000000 00000000 00100002 …|  TensorTensorScanArith op0=mult, op1=add, tensor0=sb[p0:128][1x512].bfloat16, tensor1=psum.b2[p0:128][1x512].float32, out=sb[p0:128]+0x4000[1x512].float32, scalar=ptr(0x00002000):float32
