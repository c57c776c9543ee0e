; listing of pe/005_r10_natural_stationary.json: R-10 alternative: the stationary addressed at its first column with one free dim (1, 128), unused dims {0,1}.
.target gen3
.decision R-10=natural
.stream pe
00000000:  |01100000 05040000 01000000 00000000 …|  Ldweights stationary=sb[p0:128]+0x4000[1x128].float16, wait sem4>=1
