; listing of batchnorm/001_bn_gradients_real_bundle.json: BNGradients (IT36) of a [128, 400] fp32 x and dy with [P,1] mean and varfactor pointers into the three sums: the real 0x63 bundle of a batch-norm-grad graph, byte for byte (its BIR instruction I-103-0).
.target gen2
.stream dve
00000000:  |63100000 05041306 02000000 68f30200 …|  BatchNormGradAccumulate x=sb[p0:128]+0x2f9b0[1x400].float32, dy=sb[p0:128]+0x2f370[1x400].float32, out=sb[p0:128]+0x30[1x3].float32, mean=0x2f368, varfactor=0x18, coeff_dtype=float32, wait sem4>=2 / upd sem6++
