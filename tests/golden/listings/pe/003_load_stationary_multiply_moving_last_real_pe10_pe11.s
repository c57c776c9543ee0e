; listing of pe/003_load_stationary_multiply_moving_last_real_pe10_pe11.json: LoadStationary and MultiplyMoving written as their own BIR instructions (KLR core names): the last Matmul of a group (flags 02) = matmul_small sg00 PE[10], PE[11].
.target gen3
.stream pe
00000000:  |01100000 051a0000 10000000 00000000 …|  Ldweights stationary=sb[p0:128]+0x41fe[-32x4][0x1][-1x32].float16, wait sem26>=16
00000040:  |02100000 00001305 00000000 00000000 …|  Matmul moving=sb[p0:128]+0x37e00[1x64].float16, psum=psum.b0[p0:128][1x64], flags=last, upd sem5++
