; listing of batchnorm/002_bn_backprop_real_pair.json: BNBackprop (IT37) of the same graph: total_elements 400, [scale, A, Bc] per partition and the mean pointer into dx; two bundles, BatchNormParamLoad 0x64 then BatchNormBackProp 0x65, the wait on the first and the update on the last: the real pair of BIR instruction I-108-0, byte for byte.
.target gen2
.stream dve
00000000:  |64100000 05040000 03000000 00000000 …|  BatchNormParamLoad coeff=sb[p0:128]+0x20[1x3].float32, n=400.0:float32, mean_kind=pointer, mean=0x2f368, wait sem4>=3
00000040:  |65100000 00001306 00000000 aa0a0080 …|  BatchNormBackProp x=sb[p0:128]+0x2f9b0[1x400].float32, dy=sb[p0:128]+0x2f370[1x400].float32, dx=sb[p0:128]+0x40[1x400].float32, upd sem6++
