; listing of control/006_r26_header_update.json: R-26 alternative: +0x06/+0x07 are the header band's update, a second update lane after R-19's.
.target gen3
.decision R-26=header-update
.stream pe
00000000:  |a0100000 0518130a 10000000 00000000 …|  EventSemaphore wait sem24>=16 / upd sem9++ / upd sem10++
