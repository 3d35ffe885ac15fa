"""DataLoader workers out of shared memory (issue 31 item 1): a training
loop whose workers hand 48 MiB batches to the main process through
/dev/shm, on a machine where /dev/shm has almost no room left (as in a
Docker container started without --shm-size, 64 MiB). The worker fails
as PyTorch itself reports it: a bus error in the worker, or the shared
memory allocation refused. /dev/shm is remounted as a 64 MiB tmpfs (or, where
mount is refused, filled but for 64 MiB by a ballast file that is
removed on the way out)."""
import os
import subprocess

from common import cuda_or_skip

torch, free, total = cuda_or_skip()
shm = "/dev/shm"
keep = 64 << 20  # Docker's default --shm-size
ballast = None
if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % keep, "tmpfs", shm],
                  stderr=subprocess.DEVNULL).returncode != 0:
    # no mount here: take all but `keep` of it with a ballast file
    st = os.statvfs(shm)
    ballast = os.path.join(shm, "kgmem-ballast")
    subprocess.run(["fallocate", "-l", str(max(st.f_bavail * st.f_frsize - keep, 0)), ballast],
                   check=True)
st = os.statvfs(shm)
print("/dev/shm: %d MiB available (docker run's default --shm-size is 64m)"
      % (st.f_bavail * st.f_frsize >> 20), flush=True)


class Images(torch.utils.data.Dataset):
    def __len__(self):
        return 1024

    def __getitem__(self, i):
        return torch.full((8, 3, 512, 512), float(i))  # 24 MiB a sample


try:
    loader = torch.utils.data.DataLoader(Images(), batch_size=2, num_workers=4)
    w = torch.zeros(3, device="cuda")
    for step, x in enumerate(loader, 1):
        loss = (x.cuda().mean(dim=(0, 1, 3, 4)) * w).sum()
        print("step %d | loss %.4f" % (step, loss.item()), flush=True)
finally:
    if ballast:
        os.unlink(ballast)
