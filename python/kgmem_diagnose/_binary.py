"""Where the compiled kgmem-diagnose binary is.

pip (meson-python) installs it into the environment's scripts directory
(`bin/` of a venv, `~/.local/bin` for --user), beside the package's
site-packages of the same install scheme; the binary then finds its rules
relative to itself (<bin>/../share/kgmem-diagnose/rules). Order:
KGMEM_DIAGNOSE_BIN (a path; for a build tree), the scripts directory of the
install scheme whose library directory holds this package, then PATH.
"""
import os
import shutil
import sysconfig

NAME = "kgmem-diagnose"


class BinaryNotFound(RuntimeError):
    """No kgmem-diagnose binary: the package was copied without pip, or the
    binary was removed. Set KGMEM_DIAGNOSE_BIN to one."""


def _schemes():
    names = []
    for get in ("get_default_scheme", "get_preferred_scheme"):
        f = getattr(sysconfig, get, None)
        try:
            names.append(f() if get == "get_default_scheme" else f("user"))
        except Exception:
            pass
    names += [n for n in sysconfig.get_scheme_names() if n not in names]
    return names


def find():
    """The binary's path. Raises BinaryNotFound."""
    env = os.environ.get("KGMEM_DIAGNOSE_BIN")
    if env:
        if os.path.isdir(env):
            raise BinaryNotFound("KGMEM_DIAGNOSE_BIN=%s is a directory, not the kgmem-diagnose "
                                 "binary (e.g. %s)" % (env, os.path.join(env, NAME)))
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise BinaryNotFound("KGMEM_DIAGNOSE_BIN=%s is not an executable file" % env)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for scheme in _schemes():
        try:
            libs = {os.path.realpath(sysconfig.get_path(k, scheme)) for k in ("purelib", "platlib")}
            if os.path.realpath(here) not in libs:
                continue
            exe = os.path.join(sysconfig.get_path("scripts", scheme), NAME)
        except Exception:
            continue
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    exe = shutil.which(NAME)
    if exe:
        return exe
    raise BinaryNotFound("%s binary not found (not beside this package, not on PATH); "
                         "set KGMEM_DIAGNOSE_BIN" % NAME)
