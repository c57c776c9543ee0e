; listing of control/012_r27_label_id_5.json: R-27 default (label-id): the BIR label_id attribute 5 is the u32 at +0x0C, as sunda 2.14 writes its labels.
.target gen3
.stream dve
00000000:  |cc100000 00000000 00000000 05000000  |  PseudoBranchLabel label=5
