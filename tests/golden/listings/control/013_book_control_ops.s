; listing of control/013_book_control_ops.json: The book-only control ops tongasm encodes: Halt, Drain (count 1), GroupResetSemaphores (range 8..23), AllEngineBarrier, Exit (datapath flag 1).
.target gen3
.stream pool
00000000:  |a2100000 00000000 00000000 00000000 …|  Drain count=1
00000040:  |b0100000 00000000 00000000 01081700  |  EventSemaphoreRangeClear mode=range, first=8, last=23
00000080:  |d5100000 00000000 00000000 00000000  |  PseudoSyncBarrier
000000c0:  |df100000 00000000 00000000 01000000  |  PseudoInst datapath=1
00000100:  |a1100000 00000000 00000000 00000000  |  Halt
