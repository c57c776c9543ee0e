; listing of next/024_recip_f32_per_partition_scalar.json: Reciprocal of a [128,1] fp32 vector (the chapter §5.3 worked bundle).
.target gen2
.stream dve
00000000:  |48100000 00000000 00000000 00800000 …|  Reciprocal src=sb[p0:128]+0x8000.float32, dst=sb[p0:128]+0x8008.float32
