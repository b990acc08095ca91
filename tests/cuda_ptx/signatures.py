"""Every CUDA kernel with every argument signature minispore launches it with
(see tests/cuda_kernels.py). Written by `make cuda-signatures`
(MINISPORE_RECORD_CUDA_SIGNATURES=1 over the simulator suites); the suites
fail a launch that is missing here."""

SIGNATURES = {
    'activation:_bias_add': (
        'float32[::1], float32[::1], float32[::1], int64, int64, boolean',
        'float64[::1], float64[::1], float64[::1], int64, int64, boolean',
        'int8[::1], int8[::1], int8[::1], int64, int64, boolean',
    ),
    'activation:_bias_add_grad': (
        'float32[::1], float32[::1], int64, int64, int64',
        'float64[::1], float64[::1], int64, int64, int64',
    ),
    "activation:_int_bias_add_grad_kernel(np.dtype('int8'))": (
        'int8[::1], int8[::1], int64, int64, int64',
    ),
    "activation:_int_bias_add_grad_kernel(np.dtype('uint64'))": (
        'uint64[::1], uint64[::1], int64, int64, int64',
    ),
    'array:_cast': (
        'boolean[::1], float32[::1]',
        'float32[::1], boolean[::1]',
        'float32[::1], float32[::1]',
        'float32[::1], float64[::1]',
        'float32[::1], int32[::1]',
        'float64[::1], boolean[::1]',
        'float64[::1], float32[::1]',
        'int32[::1], float32[::1]',
        'int32[::1], float64[::1]',
        'int32[::1], int32[::1]',
        'int64[::1], float32[::1]',
    ),
    'array:_fill': (
        'float32[::1], float32',
        'float64[::1], float64',
        'int32[::1], int32',
        'int64[::1], int64',
        'uint16[::1], uint16',
    ),
    'array:_scale': (
        'float32[::1], float32[::1], float32[::1]',
        'float64[::1], float64[::1], float64[::1]',
    ),
    'array:_strided_copy': (
        'float32[::1], int64, float32[::1], int64, int64, int64[::1], int64[::1], int64[::1], int64',
        'float64[::1], int64, float64[::1], int64, int64, int64[::1], int64[::1], int64[::1], int64',
        'int32[::1], int64, int32[::1], int64, int64, int64[::1], int64[::1], int64[::1], int64',
        'uint16[::1], int64, uint16[::1], int64, int64, int64[::1], int64[::1], int64[::1], int64',
    ),
    'conv:_col2im_kernel': (
        'float32[:, :, ::1], int64, int64, int64, int64, int64, int64, int64, int64, int64, float32[:, :, :, ::1]',
        'float64[:, :, ::1], int64, int64, int64, int64, int64, int64, int64, int64, int64, float64[:, :, :, ::1]',
    ),
    'conv:_group_major_kernel': (
        'float32[:, :, ::1], int64, float32[:, :, ::1]',
        'float64[:, :, ::1], int64, float64[:, :, ::1]',
    ),
    'conv:_im2col_kernel(False)': (
        'float32[:, :, :, ::1], int64, int64, int64, int64, int64, int64, int64, int64, int64, float32[:, :, ::1]',
        'float64[:, :, :, ::1], int64, int64, int64, int64, int64, int64, int64, int64, int64, float64[:, :, ::1]',
    ),
    'conv:_im2col_kernel(True)': (
        'float32[:, :, :, ::1], int64, int64, int64, int64, int64, int64, int64, int64, int64, float32[:, :, ::1]',
        'float64[:, :, :, ::1], int64, int64, int64, int64, int64, int64, int64, int64, int64, float64[:, :, ::1]',
    ),
    'conv:_pad2d_kernel': (
        'float32[:, :, :, ::1], int64, int64, float32[:, :, :, ::1]',
        'float64[:, :, :, ::1], int64, int64, float64[:, :, :, ::1]',
    ),
    "decomp:_cholesky_inverse_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[:, :, ::1], boolean',
    ),
    "decomp:_cholesky_inverse_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[:, :, ::1], boolean',
    ),
    "decomp:_cholesky_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[:, :, ::1], boolean, float32, int32[::1]',
    ),
    "decomp:_cholesky_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[:, :, ::1], boolean, float64, int32[::1]',
    ),
    "decomp:_cholesky_solve_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1], boolean',
    ),
    "decomp:_cholesky_solve_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1], boolean',
    ),
    "decomp:_geqrf_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, ::1], float32',
    ),
    "decomp:_geqrf_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, ::1], float64',
    ),
    "decomp:_lstsq_kernel(np.dtype('float32'))": (
        'float32[:, ::1], float32[:, ::1], float32[:, ::1], float32, float32',
    ),
    "decomp:_lstsq_kernel(np.dtype('float64'))": (
        'float64[:, ::1], float64[:, ::1], float64[:, ::1], float64, float64',
    ),
    'decomp:_lu_unpack_grad_matrices': (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1]',
    ),
    'decomp:_lu_unpack_matrices': (
        'float32[:, :, ::1], int32[:, ::1], float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1], int32[::1]',
        'int32[:, :, ::1], int32[:, ::1], int32[:, :, ::1], int32[:, :, ::1], int32[:, :, ::1], int32[::1]',
    ),
    "decomp:_matrix_solve_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1], boolean, int32[::1]',
    ),
    "decomp:_matrix_solve_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1], boolean, int32[::1]',
    ),
    "decomp:_orgqr_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[:, ::1], float32[:, :, ::1]',
    ),
    "decomp:_orgqr_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[:, ::1], float64[:, :, ::1]',
    ),
    "decomp:_qr_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1], float32',
    ),
    "decomp:_qr_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1], float64',
    ),
    "decomp:_svd_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[:, ::1], float32[:, :, ::1], float32[:, :, ::1], boolean, float32, float32',
    ),
    "decomp:_svd_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[:, ::1], float64[:, :, ::1], float64[:, :, ::1], boolean, float64, float64',
    ),
    'elementwise:abs._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:abs_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:acos._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:add._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:asin._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:atan._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:atan2._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:bessel_i0._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_i0e._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_i1._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_i1e._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_j0._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_j1._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_k0._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_k0e._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_k1._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_k1e._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_y0._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:bessel_y1._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:betainc._kernel': (
        'float32[::1], float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:bitwise_and._kernel': (
        'boolean[::1], boolean[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int16[::1], int16[::1], int16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int8[::1], int8[::1], int8[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint16[::1], uint16[::1], uint16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint32[::1], uint32[::1], uint32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint64[::1], uint64[::1], uint64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint8[::1], uint8[::1], uint8[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:bitwise_or._kernel': (
        'boolean[::1], boolean[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int16[::1], int16[::1], int16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int8[::1], int8[::1], int8[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint16[::1], uint16[::1], uint16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint32[::1], uint32[::1], uint32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint64[::1], uint64[::1], uint64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint8[::1], uint8[::1], uint8[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:bitwise_xor._kernel': (
        'boolean[::1], boolean[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int16[::1], int16[::1], int16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int8[::1], int8[::1], int8[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint16[::1], uint16[::1], uint16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint32[::1], uint32[::1], uint32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint64[::1], uint64[::1], uint64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint8[::1], uint8[::1], uint8[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:ceil._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:cos._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:cosh._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:digamma._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:equal._kernel': (
        'float32[::1], float32[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:erf._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:erfc._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:erfinv._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:exp._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:expm1._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:floor._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:floordiv._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:floormod._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:gcd._kernel': (
        'int16[::1], int16[::1], int16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:gelu_erf._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:gelu_erf_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:gelu_tanh._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:gelu_tanh_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:greater._kernel': (
        'float32[::1], float32[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:greater_equal._kernel': (
        'float32[::1], float32[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:hypot._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:igamma._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:igamma_grad_a._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:igammac._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:invert._kernel': (
        'int16[::1], int16[::1], int64, int64[::1], int64[::1]',
        'int32[::1], int32[::1], int64, int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64, int64[::1], int64[::1]',
        'int8[::1], int8[::1], int64, int64[::1], int64[::1]',
        'uint16[::1], uint16[::1], int64, int64[::1], int64[::1]',
        'uint32[::1], uint32[::1], int64, int64[::1], int64[::1]',
        'uint64[::1], uint64[::1], int64, int64[::1], int64[::1]',
        'uint8[::1], uint8[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:isfinite._kernel': (
        'float32[::1], boolean[::1], int64, int64[::1], int64[::1]',
        'float64[::1], boolean[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:isinf._kernel': (
        'float32[::1], boolean[::1], int64, int64[::1], int64[::1]',
        'float64[::1], boolean[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:isnan._kernel': (
        'float32[::1], boolean[::1], int64, int64[::1], int64[::1]',
        'float64[::1], boolean[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:lcm._kernel': (
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:left_shift._kernel': (
        'int16[::1], int16[::1], int16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int8[::1], int8[::1], int8[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint16[::1], uint16[::1], uint16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint32[::1], uint32[::1], uint32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint8[::1], uint8[::1], uint8[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:left_shift64._kernel': (
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint64[::1], uint64[::1], uint64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:less._kernel': (
        'float32[::1], float32[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], int64[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:less_equal._kernel': (
        'float32[::1], float32[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:lgamma._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:log._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:log1p._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:logical_and._kernel': (
        'float32[::1], float32[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:logical_not._kernel': (
        'float32[::1], boolean[::1], int64, int64[::1], int64[::1]',
        'float64[::1], boolean[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:logical_or._kernel': (
        'float32[::1], float32[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:logical_xor._kernel': (
        'float32[::1], float32[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:maximum._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:maximum_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:minimum._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:minimum_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:mul._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:neg._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:nextafter._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:not_equal._kernel': (
        'float32[::1], float32[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], boolean[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:polygamma._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:population_count._kernel': (
        'uint16[::1], uint8[::1], int64, int64[::1], int64[::1]',
        'uint32[::1], uint8[::1], int64, int64[::1], int64[::1]',
        'uint64[::1], uint8[::1], int64, int64[::1], int64[::1]',
        'uint8[::1], uint8[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:pow._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:pow_grad_x._kernel': (
        'float32[::1], float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:pow_grad_y._kernel': (
        'float32[::1], float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:realdiv._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:reciprocal._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:relu._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:relu_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:right_shift._kernel': (
        'int16[::1], int16[::1], int16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int32[::1], int32[::1], int32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'int8[::1], int8[::1], int8[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint16[::1], uint16[::1], uint16[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint32[::1], uint32[::1], uint32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint8[::1], uint8[::1], uint8[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:right_shift64._kernel': (
        'int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1]',
        'uint64[::1], uint64[::1], uint64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:rsqrt._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:rsqrt_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:select._kernel': (
        'boolean[::1], float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
        'boolean[::1], float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
        'boolean[::1], int64[::1], int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:sigmoid._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:sigmoid_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:sign._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
        'int32[::1], int32[::1], int64, int64[::1], int64[::1]',
        'int64[::1], int64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:sin._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:sinh._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:sqrt._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:sqrt_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:square._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:square_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:sub._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:tan._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:tanh._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:tanh_grad._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'elementwise:trigamma._kernel': (
        'float32[::1], float32[::1], int64, int64[::1], int64[::1]',
        'float64[::1], float64[::1], int64, int64[::1], int64[::1]',
    ),
    'elementwise:zeta._kernel': (
        'float32[::1], float32[::1], float32[::1], int64, int64[::1], int64[::1], int64[::1]',
        'float64[::1], float64[::1], float64[::1], int64, int64[::1], int64[::1], int64[::1]',
    ),
    'half:_float_to_half': (
        'float32[::1], uint16[::1]',
        'float64[::1], uint16[::1]',
    ),
    'half:_half_to_float': (
        'uint16[::1], float32[::1]',
        'uint16[::1], float64[::1]',
    ),
    'indexing:_chunk_counts_kernel': (
        'boolean[::1], int64[::1]',
        'boolean[:], int64[::1]',
    ),
    'indexing:_compact_kernel': (
        'float32[::1], boolean[::1], int64[::1], float32[::1]',
        'int64[::1], boolean[::1], int64[::1], int64[::1]',
    ),
    'indexing:_fill_kernel': (
        'float32[::1], float32',
        'float64[::1], float64',
    ),
    'indexing:_first_bad_index_kernel': (
        'int32[::1], int64, int64[::1]',
        'int64[::1], int64, int64[::1]',
    ),
    'indexing:_first_bad_label_kernel': (
        'int32[::1], int64, int64, int64[::1]',
        'int64[::1], int64, int64, int64[::1]',
    ),
    'indexing:_first_nonfinite_kernel': (
        'float32[::1], int64[::1]',
        'float64[::1], int64[::1]',
    ),
    'indexing:_gather_kernel': (
        'float32[:, :, ::1], int32[::1], float32[:, :, ::1]',
        'float32[:, :, ::1], int64[::1], float32[:, :, ::1]',
        'float64[:, :, ::1], int32[::1], float64[:, :, ::1]',
        'float64[:, :, ::1], int64[::1], float64[:, :, ::1]',
    ),
    'indexing:_one_hot_kernel': (
        'int32[:, ::1], float32, float32, float32[:, :, ::1]',
        'int64[:, ::1], float32, float32, float32[:, :, ::1]',
        'int64[:, ::1], float64, float64, float64[:, :, ::1]',
        'int64[:, ::1], int32, int32, int32[:, :, ::1]',
    ),
    'indexing:_segment_sum_in_order_kernel': (
        'float32[:, :, ::1], int64[::1], int64[::1], float32, float32[:, :, ::1]',
        'float64[:, :, ::1], int64[::1], int64[::1], float64, float64[:, :, ::1]',
    ),
    'indexing:_segment_sum_kernel': (
        'float32[:, :, ::1], int32[::1], float32[:, :, ::1]',
        'float32[:, :, ::1], int64[::1], float32[:, :, ::1]',
        'float64[:, :, ::1], int32[::1], float64[:, :, ::1]',
    ),
    "linalg:_det_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[::1]',
    ),
    "linalg:_det_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[::1]',
    ),
    "linalg:_inverse_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[:, :, ::1], boolean, float32',
    ),
    "linalg:_inverse_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[:, :, ::1], boolean, float64',
    ),
    "linalg:_slogdet_kernel(np.dtype('float32'))": (
        'float32[:, :, ::1], float32[::1], float32[::1]',
    ),
    "linalg:_slogdet_kernel(np.dtype('float64'))": (
        'float64[:, :, ::1], float64[::1], float64[::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float32'), False, False, False, (16, 16, 16, 4, 4))": (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float32'), False, True, False, (128, 128, 8, 8, 8))": (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float32'), False, True, False, (16, 16, 16, 4, 4))": (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float32'), False, True, False, (64, 64, 8, 4, 4))": (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float32'), True, False, False, (16, 16, 16, 4, 4))": (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float32'), True, True, False, (16, 16, 16, 4, 4))": (
        'float32[:, :, ::1], float32[:, :, ::1], float32[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float64'), False, False, False, (16, 16, 16, 4, 4))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float64'), False, False, True, (16, 16, 16, 4, 4))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float64'), False, True, False, (128, 128, 8, 8, 8))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float64'), False, True, False, (16, 16, 16, 4, 4))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float64'), False, True, False, (64, 64, 8, 4, 4))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float64'), True, False, False, (16, 16, 16, 4, 4))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('float64'), True, True, False, (16, 16, 16, 4, 4))": (
        'float64[:, :, ::1], float64[:, :, ::1], float64[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('int32'), False, False, False, (16, 16, 16, 4, 4))": (
        'int32[:, :, ::1], int32[:, :, ::1], int32[:, :, ::1]',
    ),
    "matmul:_gemm_kernel(np.dtype('int8'), False, False, False, (16, 16, 16, 4, 4))": (
        'int8[:, :, ::1], int8[:, :, ::1], int8[:, :, ::1]',
    ),
    'norm:_batch_norm_grad_kernel': (
        'float32[:, :, ::1], float32[:, :, ::1], float32[::1], float32[::1], float32[::1], boolean, float32[:, :, ::1], float32[::1], float32[::1]',
        'float64[:, :, ::1], float64[:, :, ::1], float64[::1], float64[::1], float64[::1], boolean, float64[:, :, ::1], float64[::1], float64[::1]',
    ),
    'norm:_batch_norm_infer_kernel': (
        'float32[:, :, ::1], float32[::1], float32[::1], float32[::1], float32[::1], float64, float32[:, :, ::1], float32[::1]',
        'float64[:, :, ::1], float64[::1], float64[::1], float64[::1], float64[::1], float64, float64[:, :, ::1], float64[::1]',
    ),
    'norm:_batch_norm_train_kernel': (
        'float32[:, :, ::1], float32[::1], float32[::1], float64, float32[:, :, ::1], float32[::1], float32[::1], float32[::1]',
        'float64[:, :, ::1], float64[::1], float64[::1], float64, float64[:, :, ::1], float64[::1], float64[::1], float64[::1]',
    ),
    'norm:_layer_norm_dx_kernel': (
        'float32[:, ::1], float32[:, ::1], float32[::1], float32[::1], float32[::1], float64, float32[:, ::1], float32[::1]',
        'float64[:, ::1], float64[:, ::1], float64[::1], float64[::1], float64[::1], float64, float64[:, ::1], float64[::1]',
    ),
    'norm:_layer_norm_kernel': (
        'float32[:, ::1], float32[::1], float32[::1], float64, float32[:, ::1], float32[::1], float32[::1]',
        'float64[:, ::1], float64[::1], float64[::1], float64, float64[:, ::1], float64[::1], float64[::1]',
    ),
    'norm:_layer_norm_param_grad_kernel': (
        'float32[:, ::1], float32[:, ::1], float32[::1], float32[::1], float32[::1], float32[::1]',
        'float64[:, ::1], float64[:, ::1], float64[::1], float64[::1], float64[::1], float64[::1]',
    ),
    'optim:_adam': (
        'float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, float32, float32, boolean',
        'float64[::1], float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, float64, float64, boolean',
    ),
    'optim:_adam_weight_decay': (
        'float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, float32',
        'float64[::1], float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, float64',
    ),
    'optim:_apply_momentum': (
        'float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, boolean',
        'float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, boolean',
    ),
    'optim:_clear_first_step': (
        'float32[::1]',
        'float64[::1]',
    ),
    'optim:_sgd': (
        'float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, float32, boolean',
        'float64[::1], float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, float64, boolean',
    ),
    'optim_adaptive:_apply_ada_max': (
        'float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, float32, float32',
        'float64[::1], float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, float64, float64',
    ),
    'optim_adaptive:_apply_adadelta': (
        'float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, float32',
        'float64[::1], float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, float64',
    ),
    'optim_adaptive:_apply_adagrad': (
        'float32[::1], float32[::1], float32[::1], float32, float32, float32, boolean',
        'float64[::1], float64[::1], float64[::1], float64, float64, float64, boolean',
    ),
    'optim_adaptive:_apply_centered_rms_prop': (
        'float32[::1], float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, float32, float32',
        'float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, float64, float64',
    ),
    'optim_adaptive:_apply_ftrl': (
        'float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, float32, float32',
        'float64[::1], float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, float64, float64',
    ),
    'optim_adaptive:_apply_proximal_adagrad': (
        'float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, float32',
        'float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, float64',
    ),
    'optim_adaptive:_apply_rms_prop': (
        'float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, float32, float32',
        'float64[::1], float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, float64, float64',
    ),
    'optim_adaptive:_asgd': (
        'float32[::1], float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, float32',
        'float64[::1], float64[::1], float32[::1], float32[::1], float64[::1], float64, float64, float64',
    ),
    'optim_adaptive:_asgd_finish': (
        'float32[::1], float32[::1], float32, float32, float32, float32, float32',
        'float32[::1], float32[::1], float64, float64, float64, float64, float64',
    ),
    'optim_adaptive:_asgd_start': (
        'float32[::1], float32, float32',
        'float32[::1], float64, float64',
    ),
    'optim_adaptive:_rprop': (
        'float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, float32, float32, float32, float32, float32, boolean',
        'float64[::1], float64[::1], float64[::1], float64[::1], float64, float64, float64, float64, float64, float64, float64, boolean',
    ),
    'pool:_avg_pool_grad_kernel': (
        'float32[:, :, :, ::1], int64, int64, int64, int64, int64, int64, boolean, float32, float32[:, :, :, ::1]',
        'float64[:, :, :, ::1], int64, int64, int64, int64, int64, int64, boolean, float64, float64[:, :, :, ::1]',
    ),
    'pool:_avg_pool_kernel': (
        'float32[:, :, :, ::1], int64, int64, int64, int64, int64, int64, boolean, float32[:, :, :, ::1]',
        'float64[:, :, :, ::1], int64, int64, int64, int64, int64, int64, boolean, float64[:, :, :, ::1]',
    ),
    'pool:_gather_rows_kernel': (
        'float32[:, ::1], int32[:, ::1], float32[:, ::1]',
        'float32[:, ::1], int64[:, ::1], float32[:, ::1]',
        'float64[:, ::1], int32[:, ::1], float64[:, ::1]',
        'float64[:, ::1], int64[:, ::1], float64[:, ::1]',
    ),
    'pool:_max_pool_argmax_kernel': (
        'float32[:, :, :, ::1], int64, int64, int64, int64, int64, int64, int64, int64, boolean, float32[:, :, :, ::1], int32[:, :, :, ::1]',
        'float32[:, :, :, ::1], int64, int64, int64, int64, int64, int64, int64, int64, boolean, float32[:, :, :, ::1], int64[:, :, :, ::1]',
        'float64[:, :, :, ::1], int64, int64, int64, int64, int64, int64, int64, int64, boolean, float64[:, :, :, ::1], int32[:, :, :, ::1]',
        'float64[:, :, :, ::1], int64, int64, int64, int64, int64, int64, int64, int64, boolean, float64[:, :, :, ::1], int64[:, :, :, ::1]',
    ),
    'pool:_max_pool_grad_kernel': (
        'float32[:, :, :, ::1], float32[:, :, :, ::1], int64, int64, int64, int64, int64, int64, float32, float32[:, :, :, ::1]',
        'float64[:, :, :, ::1], float64[:, :, :, ::1], int64, int64, int64, int64, int64, int64, float64, float64[:, :, :, ::1]',
    ),
    'pool:_max_pool_kernel': (
        'float32[:, :, :, ::1], int64, int64, int64, int64, int64, int64, float32[:, :, :, ::1]',
        'float64[:, :, :, ::1], int64, int64, int64, int64, int64, int64, float64[:, :, :, ::1]',
    ),
    'pool:_scatter_add_rows_kernel': (
        'float32[:, ::1], int32[:, ::1], float32, float32[:, ::1]',
        'float32[:, ::1], int64[:, ::1], float32, float32[:, ::1]',
        'float64[:, ::1], int32[:, ::1], float64, float64[:, ::1]',
        'float64[:, ::1], int64[:, ::1], float64, float64[:, ::1]',
    ),
    'pool:_scatter_rows_kernel': (
        'float32[:, ::1], int32[:, ::1], float32, float32[:, ::1], int64[::1]',
        'float32[:, ::1], int64[:, ::1], float32, float32[:, ::1], int64[::1]',
        'float64[:, ::1], int32[:, ::1], float64, float64[:, ::1], int64[::1]',
        'float64[:, ::1], int64[:, ::1], float64, float64[:, ::1], int64[::1]',
    ),
    'random:_bernoulli_kernel': (
        'float64[::1], float64[::1], float32[::1]',
        'float64[::1], float64[::1], float64[::1]',
    ),
    'random:_dropout_kernel': (
        'float32[::1], float32[::1], float32, float32, float32[::1], float32[::1]',
        'float64[::1], float64[::1], float64, float64, float64[::1], float64[::1]',
    ),
    'random:_gamma_round_kernel': (
        'float64[::1], float64[:, ::1], float32[::1], uint8[::1]',
        'float64[::1], float64[:, ::1], float64[::1], uint8[::1]',
    ),
    'random:_laplace_kernel': (
        'float64[::1], float32[::1]',
        'float64[::1], float64[::1]',
    ),
    'random:_multinomial_kernel': (
        'float64[:, ::1], float64[:, ::1], int32[:, ::1]',
        'float64[:, ::1], float64[:, ::1], int64[:, ::1]',
    ),
    'random:_normal_kernel': (
        'float64[::1], float64[::1], float32[::1]',
        'float64[::1], float64[::1], float64[::1]',
    ),
    'random:_poisson_kernel': (
        'float64[::1], float64[::1], float32[::1]',
        'float64[::1], float64[::1], float64[::1]',
        'float64[::1], float64[::1], int32[::1]',
        'float64[::1], float64[::1], int64[::1]',
    ),
    'random:_uniform_int_kernel': (
        'float64[::1], int64, int64, int32[::1]',
        'float64[::1], int64, int64, int64[::1]',
    ),
    'reduce:_argmax_rows': (
        'float32[::1], int64[::1], int64, int64',
        'float64[::1], int64[::1], int64, int64',
    ),
    'reduce:_max_rows': (
        'float32[::1], float32[::1], int64, int64',
        'float64[::1], float64[::1], int64, int64',
    ),
    'reduce:_min_rows': (
        'float32[::1], float32[::1], int64, int64',
        'float64[::1], float64[::1], int64, int64',
    ),
    'reduce:_minmax_grad_rows': (
        'float32[::1], float32[::1], float32[::1], float32[::1], int64, int64',
        'float64[::1], float64[::1], float64[::1], float64[::1], int64, int64',
    ),
    'reduce:_sum_rows': (
        'float32[::1], float32[::1], int64, int64, float64',
        'float64[::1], float64[::1], int64, int64, float64',
    ),
    'roi:_ps_roi_pool': (
        'float32[:, :, :, ::1], float32[::1], float32, int64, float32, float32[:, :, :, ::1]',
    ),
    'roi:_ps_roi_pool_grad': (
        'float32[:, :, :, ::1], float32[:, :, ::1], float32, int64, float32[:, :, :, ::1]',
    ),
    'scatter:_first_bad_kernel': (
        'int32[::1], int64, int64[::1]',
        'int64[::1], int64, int64[::1]',
    ),
    'scatter:_gather_d_kernel': (
        'boolean[::1], int64[::1], int32[::1], int64[::1], int64, int64, boolean[::1]',
        'boolean[::1], int64[::1], int64[::1], int64[::1], int64, int64, boolean[::1]',
        'float32[::1], int64[::1], int32[::1], int64[::1], int64, int64, float32[::1]',
        'float32[::1], int64[::1], int64[::1], int64[::1], int64, int64, float32[::1]',
        'float64[::1], int64[::1], int32[::1], int64[::1], int64, int64, float64[::1]',
        'float64[::1], int64[::1], int64[::1], int64[::1], int64, int64, float64[::1]',
        'int32[::1], int64[::1], int32[::1], int64[::1], int64, int64, int32[::1]',
        'int32[::1], int64[::1], int64[::1], int64[::1], int64, int64, int32[::1]',
        'int64[::1], int64[::1], int32[::1], int64[::1], int64, int64, int64[::1]',
        'int64[::1], int64[::1], int64[::1], int64[::1], int64, int64, int64[::1]',
        'int8[::1], int64[::1], int32[::1], int64[::1], int64, int64, int8[::1]',
        'int8[::1], int64[::1], int64[::1], int64[::1], int64, int64, int8[::1]',
        'uint16[::1], int64[::1], int32[::1], int64[::1], int64, int64, uint16[::1]',
        'uint16[::1], int64[::1], int64[::1], int64[::1], int64, int64, uint16[::1]',
        'uint8[::1], int64[::1], int32[::1], int64[::1], int64, int64, uint8[::1]',
        'uint8[::1], int64[::1], int64[::1], int64[::1], int64, int64, uint8[::1]',
    ),
    'scatter:_scatter_add_kernel': (
        'float32[::1], int64[::1], int32[::1], int64[::1], float32[::1], int64, int64',
        'float32[::1], int64[::1], int64[::1], int64[::1], float32[::1], int64, int64',
        'float64[::1], int64[::1], int32[::1], int64[::1], float64[::1], int64, int64',
        'float64[::1], int64[::1], int64[::1], int64[::1], float64[::1], int64, int64',
        'int32[::1], int64[::1], int32[::1], int64[::1], int32[::1], int64, int64',
        'int32[::1], int64[::1], int64[::1], int64[::1], int32[::1], int64, int64',
        'int64[::1], int64[::1], int32[::1], int64[::1], int64[::1], int64, int64',
        'int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64, int64',
    ),
    'scatter:_scatter_put_kernel': (
        'boolean[::1], int64[::1], int32[::1], int64[::1], boolean[::1], int64, int64',
        'boolean[::1], int64[::1], int64[::1], int64[::1], boolean[::1], int64, int64',
        'float32[::1], int64[::1], int32[::1], int64[::1], float32[::1], int64, int64',
        'float32[::1], int64[::1], int64[::1], int64[::1], float32[::1], int64, int64',
        'float64[::1], int64[::1], int32[::1], int64[::1], float64[::1], int64, int64',
        'float64[::1], int64[::1], int64[::1], int64[::1], float64[::1], int64, int64',
        'int32[::1], int64[::1], int32[::1], int64[::1], int32[::1], int64, int64',
        'int32[::1], int64[::1], int64[::1], int64[::1], int32[::1], int64, int64',
        'int64[::1], int64[::1], int32[::1], int64[::1], int64[::1], int64, int64',
        'int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64, int64',
        'uint16[::1], int64[::1], int32[::1], int64[::1], uint16[::1], int64, int64',
        'uint16[::1], int64[::1], int64[::1], int64[::1], uint16[::1], int64, int64',
        'uint8[::1], int64[::1], int32[::1], int64[::1], uint8[::1], int64, int64',
        'uint8[::1], int64[::1], int64[::1], int64[::1], uint8[::1], int64, int64',
    ),
    'scatter_reduce:_first_bad_kernel': (
        'int32[::1], int64, int64[::1]',
        'int64[::1], int64, int64[::1]',
    ),
    'scatter_reduce:_scatter_rows_kernel': (
        'boolean[:, :, ::1], int32[::1], boolean[:, :, ::1], int64',
        'boolean[:, :, ::1], int64[::1], boolean[:, :, ::1], int64',
        'float32[:, :, ::1], int32[::1], float32[:, :, ::1], int64',
        'float32[:, :, ::1], int64[::1], float32[:, :, ::1], int64',
        'float64[:, :, ::1], int32[::1], float64[:, :, ::1], int64',
        'float64[:, :, ::1], int64[::1], float64[:, :, ::1], int64',
        'int16[:, :, ::1], int32[::1], int16[:, :, ::1], int64',
        'int16[:, :, ::1], int64[::1], int16[:, :, ::1], int64',
        'int32[:, :, ::1], int32[::1], int32[:, :, ::1], int64',
        'int32[:, :, ::1], int64[::1], int32[:, :, ::1], int64',
        'int64[:, :, ::1], int32[::1], int64[:, :, ::1], int64',
        'int64[:, :, ::1], int64[::1], int64[:, :, ::1], int64',
        'int8[:, :, ::1], int32[::1], int8[:, :, ::1], int64',
        'int8[:, :, ::1], int64[::1], int8[:, :, ::1], int64',
        'uint8[:, :, ::1], int32[::1], uint8[:, :, ::1], int64',
        'uint8[:, :, ::1], int64[::1], uint8[:, :, ::1], int64',
    ),
    'softmax:_mean': (
        'float32[::1], float64[::1]',
        'float64[::1], float64[::1]',
    ),
    'softmax:_softmax': (
        'float32[::1], float32[::1], int64, int64, boolean',
        'float64[::1], float64[::1], int64, int64, boolean',
    ),
    'softmax:_softmax_cross_entropy': (
        'float32[::1], float32[::1], float32[::1], float32[::1], int64',
        'float64[::1], float64[::1], float64[::1], float64[::1], int64',
    ),
    'softmax:_softmax_grad': (
        'float32[::1], float32[::1], float32[::1], int64, int64, boolean',
        'float64[::1], float64[::1], float64[::1], int64, int64, boolean',
    ),
    'softmax:_sparse_softmax_cross_entropy': (
        'float32[::1], int32[::1], float32[::1], float32[::1], float32, int64, int64[::1]',
        'float32[::1], int64[::1], float32[::1], float32[::1], float32, int64, int64[::1]',
        'float64[::1], int32[::1], float64[::1], float64[::1], float64, int64, int64[::1]',
        'float64[::1], int64[::1], float64[::1], float64[::1], float64, int64, int64[::1]',
    ),
    'sort:_cumextreme_lines': (
        'float32[:, :, ::1], float32[:, :, ::1], int32[:, :, ::1], boolean',
        'float32[:, :, ::1], float32[:, :, ::1], int64[:, :, ::1], boolean',
        'float64[:, :, ::1], float64[:, :, ::1], int32[:, :, ::1], boolean',
        'float64[:, :, ::1], float64[:, :, ::1], int64[:, :, ::1], boolean',
        'int16[:, :, ::1], int16[:, :, ::1], int32[:, :, ::1], boolean',
        'int16[:, :, ::1], int16[:, :, ::1], int64[:, :, ::1], boolean',
        'int32[:, :, ::1], int32[:, :, ::1], int32[:, :, ::1], boolean',
        'int32[:, :, ::1], int32[:, :, ::1], int64[:, :, ::1], boolean',
        'int64[:, :, ::1], int64[:, :, ::1], int32[:, :, ::1], boolean',
        'int64[:, :, ::1], int64[:, :, ::1], int64[:, :, ::1], boolean',
        'int8[:, :, ::1], int8[:, :, ::1], int32[:, :, ::1], boolean',
        'int8[:, :, ::1], int8[:, :, ::1], int64[:, :, ::1], boolean',
        'uint16[:, :, ::1], uint16[:, :, ::1], int32[:, :, ::1], boolean',
        'uint16[:, :, ::1], uint16[:, :, ::1], int64[:, :, ::1], boolean',
        'uint32[:, :, ::1], uint32[:, :, ::1], int32[:, :, ::1], boolean',
        'uint32[:, :, ::1], uint32[:, :, ::1], int64[:, :, ::1], boolean',
        'uint64[:, :, ::1], uint64[:, :, ::1], int32[:, :, ::1], boolean',
        'uint64[:, :, ::1], uint64[:, :, ::1], int64[:, :, ::1], boolean',
        'uint8[:, :, ::1], uint8[:, :, ::1], int32[:, :, ::1], boolean',
        'uint8[:, :, ::1], uint8[:, :, ::1], int64[:, :, ::1], boolean',
    ),
    'sort:_cumsum_lines': (
        'float32[:, :, ::1], float32[:, :, ::1], float64, boolean, boolean',
        'int32[:, :, ::1], int32[:, :, ::1], int64, boolean, boolean',
    ),
    'sort:_scatter_lines': (
        'float32[:, :, ::1], int32[:, :, ::1], float32[:, :, ::1]',
    ),
    'sort:_searchsorted_items': (
        'float32[:, ::1], float32[:, ::1], int32[:, ::1], boolean',
        'float32[:, ::1], float32[:, ::1], int64[:, ::1], boolean',
        'float64[:, ::1], float64[:, ::1], int32[:, ::1], boolean',
        'float64[:, ::1], float64[:, ::1], int64[:, ::1], boolean',
        'int16[:, ::1], int16[:, ::1], int32[:, ::1], boolean',
        'int16[:, ::1], int16[:, ::1], int64[:, ::1], boolean',
        'int32[:, ::1], int32[:, ::1], int32[:, ::1], boolean',
        'int32[:, ::1], int32[:, ::1], int64[:, ::1], boolean',
        'int64[:, ::1], int64[:, ::1], int32[:, ::1], boolean',
        'int64[:, ::1], int64[:, ::1], int64[:, ::1], boolean',
        'int8[:, ::1], int8[:, ::1], int32[:, ::1], boolean',
        'int8[:, ::1], int8[:, ::1], int64[:, ::1], boolean',
    ),
    'sort:_sort_lines': (
        'float32[:, :, ::1], float32[:, :, ::1], int32[:, :, ::1], int32[:, :, ::1], boolean',
        'float64[:, :, ::1], float64[:, :, ::1], int32[:, :, ::1], int32[:, :, ::1], boolean',
        'int32[:, :, ::1], int32[:, :, ::1], int32[:, :, ::1], int32[:, :, ::1], boolean',
    ),
    'sort:_topk_lines': (
        'float32[:, :, ::1], float32[:, :, ::1], int32[:, :, ::1], int32[:, :, ::1], int32[:, :, ::1]',
    ),
    'unique:_unique_with_pad_kernel': (
        'float32[::1], float32, float32[::1], int32[::1]',
        'float64[::1], float64, float64[::1], int32[::1]',
        'int32[::1], int32, int32[::1], int32[::1]',
        'int64[::1], int64, int64[::1], int64[::1]',
    ),
    'window:_rolling_kernel': (
        'float32[:, :, ::1], int64, int64, boolean, boolean, boolean, int64, float32, float32[:, :, ::1]',
        'float64[:, :, ::1], int64, int64, boolean, boolean, boolean, int64, float64, float64[:, :, ::1]',
        'int32[:, :, ::1], int64, int64, boolean, boolean, boolean, int64, int32, int32[:, :, ::1]',
        'int64[:, :, ::1], int64, int64, boolean, boolean, boolean, int64, int64, int64[:, :, ::1]',
    ),
    'window:_shift_kernel': (
        'boolean[:, :, ::1], int64, boolean, boolean[:, :, ::1]',
        'float32[:, :, ::1], int64, float32, float32[:, :, ::1]',
        'float64[:, :, ::1], int64, float64, float64[:, :, ::1]',
        'int32[:, :, ::1], int64, int32, int32[:, :, ::1]',
        'int64[:, :, ::1], int64, int64, int64[:, :, ::1]',
    ),
}
