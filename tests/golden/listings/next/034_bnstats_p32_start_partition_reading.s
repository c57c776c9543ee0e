; listing of next/034_bnstats_p32_start_partition_reading.json: BNStats on 64 partitions starting at partition 32: +0x22 under the N-39 alternative (the BN page's "BASE partition" label).
.target gen2
.decision N-39=start-partition
.stream dve
00000000:  |61100000 00000000 00000000 00008000 …|  BatchNormStats2 src=sb[p32:0][1x16].float32, dst=sb[p32:0]+0x8000[1x6].float32, start=32
