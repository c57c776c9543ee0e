; listing of pe/017_r10_m48_one_dim.json: R-10: a 128 x 48 fp16 stationary (M not a multiple of 32, as the real 12-, 20- and 85-column tiles) is written as one dim (-1, 48) from its last column.
.target gen3
.stream pe
00000000:  |01100000 00000000 00000000 00000000 …|  Ldweights stationary=sb[p0:128]+0x5e[-1x48].float16
