"""`python -m kgmem_diagnose ARGS...` is `kgmem-diagnose ARGS...`: the
installed binary replaces this process (same exit status, terminal,
signals and standard streams)."""
import os
import sys

from . import _binary


def main():
    try:
        exe = _binary.find()
    except _binary.BinaryNotFound as e:
        sys.stderr.write("python -m kgmem_diagnose: %s\n" % e)
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
