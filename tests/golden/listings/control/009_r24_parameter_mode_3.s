; listing of control/009_r24_parameter_mode_3.json: R-24 alternative: SetOrderingMode's ordering_mode is written as given.
.target gen3
.decision R-24=parameter
.stream dve
00000000:  |b1100000 00000000 00000000 03000000  |  SetOrderingMode mode=3
