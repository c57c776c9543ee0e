; listing of next/129_stt_bitvec_and_xor_0x9e.json: (tensor0 & 0x00FF00FF) ^ tensor1 with reverse1 (tensor1 ^ t): the bit-vector ScalarTensorTensor 0x9E on partitions 32..95, int32 tensor0 with two free dims, uint16 tensor1, int32 out at an element offset (N-21 default slots).
.target gen2
.decision N-2=ptr0-imm1-reg2
.stream dve
00000000:  |9e100000 00000000 00000000 00048000 …|  ScalarTensorTensorBitvec op0=bitwise_and, op1=bitwise_xor, tensor0=sb[p32:64][16x4][1x16].int32, tensor1=sb[p32:64]+0x400[1x64].uint16, out=sb[p32:64]+0x840[1x64].int32, scalar=16711935:int32, reverse1=1
