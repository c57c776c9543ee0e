; listing of tensor/066_genericcopy_pool_46.json: GenericCopy encodes exactly like TensorCopy (0x46) and goes to the pool stream for engine Pool.
.target gen2
.stream pool
00000000:  |46100000 00000000 00000000 00000000 …|  Copy src=sb[p0:128][1x64].int32, dst=sb[p0:128]+0x200[1x64].int32
