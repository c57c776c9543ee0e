; listing of tensor/068_tc46_register_ap_src.json: TensorCopy with a register_ap source: ADDR4 0x80000003 in a TENSOR4D slot, partition count 64 from the register AP.
.target gen2
.stream dve
00000000:  |46100000 00000000 00000000 03000080 …|  Copy src=r3[:64][16x4][1x16].float32, dst=sb[p0:64]+0x200[16x4][1x16].float32
