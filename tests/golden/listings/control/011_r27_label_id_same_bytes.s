; listing of control/011_r27_label_id_same_bytes.json: R-27=zero: no body; the bytes of a label 0 are the same (all zero after the header).
.target gen3
.decision R-27=zero
.stream dve
00000000:  |cc100000 00000000 00000000 00000000  |  PseudoBranchLabel
