; listing of gpsimd/001_tensor_scalar_addr_real_imm.json: TensorScalarPtr with is_tensor_scalar_addr (KLR's tensorScalarAddr): dst = (src * 1) + (-1) over 3 int32 of one partition, on the Pool engine: the 0x74 TensorScalarAddr bundle of BIR instruction I-42-0, byte for byte.
.target gen2
.stream pool
00000000:  |74100000 05061303 05000000 f0ff0200 …|  TensorScalarAddr op0=mult, op1=add, src=sb[p0:1]+0x2fff0[1x3].int32, dst=sb[p0:1]+0x20[1x3].int32, s0=imm, s0_value=0x1, s0_dtype=int32, s1=imm, s1_value=0xffffffffffffffff, s1_dtype=int32, wait sem6>=5 / upd sem3++
