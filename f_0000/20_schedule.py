# memory plan: 0 of 1 nodes write into 0 reused buffers (0 bytes)
# peak live intermediates: 16 bytes at node 0, activations 16 bytes
def _run(_o, i0):
    v0_0 = f4(i0, c5, c6)
    return _Tensor(v0_0, d7, internal=True)
