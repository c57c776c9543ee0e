; listing of control/010_r24_zero_refuses_mode_3.json: R-24 default: a non-zero ordering mode encodes but breaks ctrl.ordering_mode (only 0 is seen): assemble refuses it.
.target gen3
.stream dve
00000000:  |b1100000 00000000 00000000 03000000  |  SetOrderingMode mode=3
