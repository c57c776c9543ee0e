; listing of sp/009_mv_reg_named_uint32.json: Register move using names from the function's registers table (src=17, dst=42), uint32.
.target gen2
.stream sp
00000000:  |a7100000 00000000 00000000 01090000 …|  Move.reg dst=r42, src=r17, dtype=uint32
