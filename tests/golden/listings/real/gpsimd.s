; one real bundle per Pool-engine (GPSIMD) opcode (tests/test_corpus_gpsimd.py)
.target gen2
.stream gpsimd
00000000:  |74100000 051a1303 50000000 00800100 …|  TensorScalarAddr op0=mult, op1=add, src=sb[p0:103]+0x18000.int32, dst=sb[p0:103]+0x58.uint64, s0=imm, s0_value=0x4, s0_dtype=int32, s1=ptr, s1_value=0x50, s1_dtype=uint64, wait sem26>=80 / upd sem3++
00000040:  |74100000 05031303 02000000 f0160000 …|  TensorScalarAddr op0=add, op1=bypass, src=sb[p0:103]+0x16f0.int32, dst=sb[p0:103]+0x68.uint64, s0=ptr, s0_value=0x58, s0_dtype=uint64, s1=imm, s1_value=0x0, s1_dtype=int32, wait sem3>=2 / upd sem3++
00000080:  |85100000 05060000 66320000 05000004  |  CustomOpHeader function=0, payloads=5, num_args=4, wait sem6>=12902
000000c0:  |86100000 00000000 00000000 00000001 …|  CustomOpPayload addr=0xadd0, dtype=float32, w0f=1, w10=1, w18=2, w1a=1, w1c=0x8e, w2c=0x11c, w30=1, w34=0x11c
00000100:  |67100000 05060000 000a0000 58ff8201 …|  PoolBufferLoad src=sb[p96:6]+0x2ff58[1x6].float32, wait sem6>=2560
00000140:  |68100000 00001303 00000000 48018001 …|  Gather src=sb[p96:6]+0x148.uint32, dst=sb[p96:6]+0xc000.float32, depth=256, upd sem3++
00000180:  |7e100000 05061303 e2090000 03000000 …|  Iota dst=sb[p0:105]+0x5dc0[1x1280].int32, base=3, pstep0=5, pnum0=16, pstep1=0, pnum1=80, pstep2=1, pnum2=1, pstep3=1, pnum3=1, wait sem6>=2530 / upd sem3++
000001c0:  |92100000 05061303 04000000 8066033d …|  TensorScalarAffineSelect cmp=not_equal, src=sb[p0:128]+0xc250[1x128].bfloat16, dst=sb[p0:128]+0xc250[1x128].bfloat16, fill=r61, offset=0, channel_multiplier=-1, pstep0=1, pnum0=128, pstep1=1, pnum1=1, pstep2=1, pnum2=1, pstep3=1, pnum3=1, wait sem6>=4 / upd sem3++
