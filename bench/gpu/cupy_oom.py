"""CuPy: blocks kept from its memory pool until cudaMalloc fails:
cupy.cuda.memory.OutOfMemoryError with the bytes allocated so far."""
import sys
try:
    import cupy as cp
except ImportError:
    print("skip: cupy not installed", file=sys.stderr)
    sys.exit(77)
print("cupy %s, %d device(s)" % (cp.__version__, cp.cuda.runtime.getDeviceCount()), flush=True)
keep = []
for step in range(1, 1000):
    keep.append(cp.empty((4 << 30,), dtype=cp.uint8))  # 4 GiB a step
    print("step %d: %d GiB held, pool %d bytes" % (step, 4 * step, cp.get_default_memory_pool().used_bytes()), flush=True)
