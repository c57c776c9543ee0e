; listing of control/002_event_semaphore_two_waits_real_pool6858.json: An EventSemaphore carrying two waits (s32 >= 4112, s6 >= 603): the real matmul_large sg00 Pool[6858].
.target gen3
.stream pool
00000000:  |a0100000 05200000 10100000 00000000 …|  EventSemaphore wait sem32>=4112 / wait sem6>=603
