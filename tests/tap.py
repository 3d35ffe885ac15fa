"""tap.py — a minimal TAP producer for the Python tests (meson runs them
with protocol 'tap'): check() prints "ok N - what" or "not ok N - what"
with diagnostic lines; skip() prints "ok N - what # SKIP why"; done()
prints the plan and exits 1 on a failure."""
import sys

_n = 0
_failed = False


def check(ok, what, diag=""):
    global _n, _failed
    _n += 1
    print(("ok %d - %s" if ok else "not ok %d - %s") % (_n, what))
    if not ok:
        _failed = True
        for line in diag.splitlines():
            print("#   " + line)


def skip(what, why):
    """A check that cannot run here: "ok N - what # SKIP why"."""
    global _n
    _n += 1
    print("ok %d - %s # SKIP %s" % (_n, what, why))


def done():
    print("1..%d" % _n)
    sys.exit(1 if _failed else 0)
