; listing of control/011_r27_label_id_same_bytes.json: R-27 alternative: a u32 label id at +0x0C; the BIR form has none, so 0.
.target gen3
.decision R-27=label-id
.stream dve
00000000:  |cc100000 00000000 00000000 00000000  |  PseudoBranchLabel
