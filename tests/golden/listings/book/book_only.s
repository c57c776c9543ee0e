; the book-only layouts (tests/golden/book/*.json), listed
.target gen3
.stream book
00000000:  |06100000 00000000 00000000 00000000 …|  Ldtags tags=sb[p0]+0x4000[1x64].int16, col_grp=4, tile_size=0x88, row_group=2, col_group=0xf
00000000:  |07100000 00000000 00000000 00000000 …|  MatmulSparse psum=psum.b0[p0][1x128], tile_size=0x88, num_active_cols=0x80, pass_flags=1, row_group=2, col_group=0xf
00000000:  |09100000 00000000 00000000 00000000 …|  LdweightsMX weights.data_addr=0x4000, weights.scale_addr=0x8000, weights.k_extent=0x20, weights.step_sign=1, weights.scale_partition=4, in_dtype=FLOAT8_E4M3, num_rows=0x80, num_active_cols=0x80, row_group=0xf
00000000:  |0a100000 00000000 00000000 00000000 …|  MatmulMX psum=psum.b0[p0][1x128].float32, moving.data_addr=0x4000, moving.scale_addr=0x8000, moving.k_extent=0x20, moving.step_sign=1, moving.scale_partition=4, in_dtype=FLOAT8_E4M3, num_rows=0x80, num_active_cols=0x80, psum_flags=3, row_group=0xf, psum_zero_region=1
00000000:  |e3100000 00000000 00000000 00000000 …|  QuantizeMX src=sb[p0:128]+0x4000[1x128].bfloat16, dst_dtype=FLOAT8_E4M3, dst.data_addr=0x5000, dst.scale_addr=0x6000, dst.k_extent=0x20, dst.step_sign=1
00000000:  |da000000 00000000 00000000 00000010  |  PseudoExtension param=0x10
00000000:  |c1100000 00000000 00000000 71506f6f …|  PseudoDMATrigger queue="qPoolDynamic", block=7
00000000:  |c4100000 00000000 00000000 00400000 …|  PseudoDMAMemcpyFullInd indirect_start_offset=0x4000, engine_config=0x40, indirect_num_elems0=1, indirect_num_elems1=1, direct_start_offset=0x8000, direct_step_elems0=0x200, engine_config2=0x40, direct_num_elems0=0x80, direct_num_elems1=1, direct_elem_size=0x200, semaphore_wait_value=5, direction=1
00000000:  |d6100000 05031303 03000000 68000000 …|  PseudoRangeCheck slot_a=sb[p0:103]+0x68, slot_b=sb[p0]+0x6ef0, bound=0x50, size=0x8340, label=0, src_dtype_tag=0x31, idx_meta=0x67, wait sem3>=3 / upd sem3++
00000000:  |ca100000 00000000 00000000 08000000 …|  PseudoEmbeddingUpdate index_dtype=INT32, embedding_table_base_addr=0x8000, embed_entry_num_elements=0x40, embed_entry_bytes_lo=0x80, sequence_length=0x10, table_num_entries=0x3e8
00000000:  |cf100000 00000000 00000000 71506f6f …|  PseudoDMASwapQueueSet queue="qPoolDynamic", instance=1
00000000:  |c2100000 00000000 00000000 71535044 …|  PseudoDMARearm queue="qSPDynamicH"
00000000:  |e7100000 00000000 00000000 00400020 …|  IndirectCopy dst=sb[p0:128]+0xc000[1x64].float16, per_index=4, index_addr=0x20004000, data_addr=0x8000, index_num_elem=0x10, src_dtype=FLOAT16, src_buffer_size=0x1000
00000000:  |a9100000 00000000 00000000 03080300 …|  CompareBranch op=eq_imm, target=1024, lhs_dtype=INT32, rhs_imm=0xa, lhs_reg=5
00000000:  |d2100000 00000000 00000000 00000000  |  PseudoFunctionReturn
00000000:  |d3100000 00000000 00000000 6b65726e …|  PseudoFunctionCall target="kernel", args=21
