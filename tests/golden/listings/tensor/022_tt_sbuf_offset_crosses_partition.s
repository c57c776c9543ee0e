; listing of tensor/022_tt_sbuf_offset_crosses_partition.json: An SBUF offset larger than one partition row moves the start partition: base 32 + 1200//1024 = 33, byte 0x400 + 176 -> ADDR4 0x008404B0; 16 partitions.
.target gen2
.stream dve
00000000:  |41100000 00000000 00000000 aa0a0410 …|  TensorTensorArithOp op=add, out=sb[p33:16]+0x4b0[1x64].float32, in0=sb[p0:16][1x64].float32, in1=sb[p0:16]+0x100[1x64].float32
