; listing of sp/038_tl_imm_var_id_from_location_index.json: A location without tensor_id gets var_id = its index among ALL memory locations of the function (2, not its allocation index 1).
.target gen2
.stream sp
00000000:  |ce100000 00000000 00000000 08000201 …|  PseudoTensorLoad data=r11, var=2+0x4, m2d=[0x1][1x2].int32
