; listing of control/008_prologue_real_b1_cc.json: SetOrderingMode and PseudoBranchLabel: bundles 0 and 1 of every real stream.
.target gen3
.stream dve
00000000:  |b1100000 00000000 00000000 00000000  |  SetOrderingMode
00000040:  |cc100000 00000000 00000000 00000000  |  PseudoBranchLabel
