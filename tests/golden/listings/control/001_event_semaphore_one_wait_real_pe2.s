; listing of control/001_event_semaphore_one_wait_real_pe2.json: An EventSemaphore carrying one wait (s24 >= 16): the real matmul_small sg00 PE[2].
.target gen3
.stream pe
00000000:  |a0100000 05180000 10000000 00000000  |  EventSemaphore wait sem24>=16
