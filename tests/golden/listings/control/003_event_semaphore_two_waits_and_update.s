; listing of control/003_event_semaphore_two_waits_and_update.json: EventSemaphore's update lane (R-19, book): two waits and a value-carrying update, each in its own value dword (no D-4 conflict).
.target gen3
.stream pe
00000000:  |a0100000 05180000 10000000 00000000 …|  EventSemaphore wait sem24>=16 / wait sem6>=12 / upd sem9+=3
