; listing of control/012_r18_prologue.json: R-18 alternative: every stream starts with SetOrderingMode and PseudoBranchLabel (sp, pool, pe, act, dve), then the program.
.target gen3
.decision R-18=prologue
.stream sp
00000000:  |b1100000 00000000 00000000 00000000  |  SetOrderingMode
00000040:  |cc100000 00000000 00000000 00000000  |  PseudoBranchLabel
.stream pool
00000000:  |b1100000 00000000 00000000 00000000  |  SetOrderingMode
00000040:  |cc100000 00000000 00000000 00000000  |  PseudoBranchLabel
00000080:  |a4100000 051b0000 10000000 00000000  |  Nop wait sem27>=16
.stream pe
00000000:  |b1100000 00000000 00000000 00000000  |  SetOrderingMode
00000040:  |cc100000 00000000 00000000 00000000  |  PseudoBranchLabel
.stream act
00000000:  |b1100000 00000000 00000000 00000000  |  SetOrderingMode
00000040:  |cc100000 00000000 00000000 00000000  |  PseudoBranchLabel
.stream dve
00000000:  |b1100000 00000000 00000000 00000000  |  SetOrderingMode
00000040:  |cc100000 00000000 00000000 00000000  |  PseudoBranchLabel
