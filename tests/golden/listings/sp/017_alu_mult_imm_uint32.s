; listing of sp/017_alu_mult_imm_uint32.json: RegisterAlu mult by uint32 immediate 0x40000 (partition stride): src dtype byte 0x09, +0x0F 0 (R-31).
.target gen2
.stream sp
00000000:  |a8100000 00000000 00000000 06090100 …|  AluOp.imm op=mult, dst=r20, src1=r21, imm=262144:uint32
