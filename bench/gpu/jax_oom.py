"""JAX/XLA: arrays kept across steps until the BFC allocator (which
preallocates 75 % of the device by default, XLA_PYTHON_CLIENT_MEM_FRACTION)
cannot place the next one: RESOURCE_EXHAUSTED with the allocator's dump."""
import sys
try:
    import jax
    import jax.numpy as jnp
except ImportError:
    print("skip: jax not installed", file=sys.stderr)
    sys.exit(77)
if not any(d.platform == "gpu" for d in jax.devices()):
    print("skip: no GPU for jax", file=sys.stderr)
    sys.exit(77)
print("jax %s on %s" % (jax.__version__, jax.devices()), flush=True)
keep = []
for step in range(1, 1000):
    keep.append(jnp.ones((1024, 1024, 1024), dtype=jnp.float32))  # 4 GiB a step
    keep[-1].block_until_ready()
    print("step %d: %d GiB of arrays" % (step, 4 * step), flush=True)
