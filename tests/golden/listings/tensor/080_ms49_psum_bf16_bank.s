; listing of tensor/080_ms49_psum_bf16_bank.json: Memset of bfloat16 into PSUM is not an encoder refusal (§2.1); ADDR4 carries partition 1, bank 1 and byte 32.
.target gen2
.stream dve
00000000:  |49100000 00000000 00000000 00000000 …|  Memset dst=psum.b1[p1:64]+0x20[1x512].bfloat16, fill=2.0:bfloat16
