; listing of tensor/081_ms49_partition_only_ap.json: A Memset whose AP has only the partition pair: element count 1 and every TENSOR4D slot {1,1}.
.target gen2
.stream dve
00000000:  |49100000 00000000 00000000 00000000 …|  Memset dst=sb[p0:128].uint32, fill=3735928559:uint32
