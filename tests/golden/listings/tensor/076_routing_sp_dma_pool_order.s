; listing of tensor/076_routing_sp_dma_pool_order.json: Engine routing: SP -> sp, DMA -> dma, Pool -> pool; the two SP memsets keep program order in the sp stream.
.target gen2
.stream sp
00000000:  |49100000 00000000 00000000 00000000 …|  Memset dst=sb[p0:128][1x64].uint32, fill=1:uint32
00000040:  |49100000 00000000 00000000 00000000 …|  Memset dst=sb[p0:128]+0x200[1x64].uint32, fill=3:uint32
.stream dma
00000000:  |49100000 00000000 00000000 00000000 …|  Memset dst=sb[p0:128]+0x100[1x64].uint32, fill=2:uint32
.stream pool
00000000:  |41100000 00000000 00000000 aa0a0480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, in1=sb[p0:128]+0x100[1x64].float32
