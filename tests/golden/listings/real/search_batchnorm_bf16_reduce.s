; one real bundle of each of 0x6C 0x6D 0x6F (yolox-trn1 top-k), 0x63 0x64 0x65 (yolox-trn1 batch-norm-grad), 0x8C (causal-attention-trn1)
.target gen2
.stream real.dve
00000000:  |6c100000 05211306 50000000 40ce0101 …|  Max8 src=sb[p64:59]+0x1ce40[1x929].float32, dst=sb[p64:59]+0x2f184[-1x8].float32, wait sem33>=80 / upd sem6++
00000040:  |6d100000 05060000 78190000 00000000 …|  MatchValueLoad src=sb[p64:59]+0x2f168[1x8].float32, wait sem6>=6520
00000080:  |6f100000 00001306 00000000 40ce0101 …|  MatchReplace8 src=sb[p64:59]+0x1ce40[1x929].float32, dst=sb[p64:59]+0x1ce40[1x929].float32, imm=-inf:float32, upd sem6++
000000c0:  |63100000 05041306 02000000 68f30200 …|  BatchNormGradAccumulate x=sb[p0:128]+0x2f9b0[1x400].float32, dy=sb[p0:128]+0x2f370[1x400].float32, out=sb[p0:128]+0x30[1x3].float32, mean=0x2f368, varfactor=0x18, coeff_dtype=float32, wait sem4>=2 / upd sem6++
00000100:  |64100000 05040000 03000000 00000000 …|  BatchNormParamLoad coeff=sb[p0:128]+0x20[1x3].float32, n=400.0:float32, mean_kind=pointer, mean=0x2f368, wait sem4>=3
00000140:  |65100000 00001306 00000000 aa0a0080 …|  BatchNormBackProp x=sb[p0:128]+0x2f9b0[1x400].float32, dy=sb[p0:128]+0x2f370[1x400].float32, dx=sb[p0:128]+0x40[1x400].float32, upd sem6++
00000180:  |8c100000 05041306 06000000 28850000 …|  TensorReduceBf16 op=add, src=sb[p0:128]+0x8528[1x1024].bfloat16, dst=sb[p0:128]+0x9528.float32, axis=2, wait sem4>=6 / upd sem6++
