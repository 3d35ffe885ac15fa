"""The PEP 517 build backend of pyproject.toml: meson-python's, with the
wheel tagged for what its binary needs where it runs.

meson-python tags a wheel that holds an executable but no extension module
py3-none-linux_x86_64, which no index takes and which says nothing about
the C library. The binary is built self-contained (-Dself_contained=true:
PCRE2, libyaml and zlib static, libcjson carried in the wheel with an
$ORIGIN run path), so it needs only glibc: the wheel is retagged
py3-none-manylinux_2_N_ARCH for the glibc 2.N it was built against (PEP
600; Debian bookworm: manylinux_2_36_x86_64), with the `wheel` library
rewriting WHEEL and RECORD. Elsewhere (not glibc) the tag is left as it is.
"""
import os
import sysconfig
import zipfile

from mesonpy import build_sdist, get_requires_for_build_sdist  # noqa: F401 (PEP 517 hooks)
import mesonpy

__all__ = ["build_wheel", "build_sdist", "get_requires_for_build_wheel",
           "get_requires_for_build_sdist", "platform_tag", "retag"]


def get_requires_for_build_wheel(config_settings=None):
    """meson-python's requirements, and `wheel` (for the retagging)."""
    return list(mesonpy.get_requires_for_build_wheel(config_settings)) + ["wheel"]


def platform_tag():
    """manylinux_2_N_ARCH for the glibc 2.N this Python runs on (the one
    the binary was just linked against), or None when it is not glibc."""
    try:
        name, version = os.confstr("CS_GNU_LIBC_VERSION").split()
        major, minor = version.split(".")[:2]
    except (AttributeError, ValueError, OSError):
        return None
    plat = sysconfig.get_platform()  # linux-x86_64, linux-aarch64
    if name != "glibc" or not plat.startswith("linux-"):
        return None
    return "manylinux_%d_%d_%s" % (int(major), int(minor), plat.split("-", 1)[1].replace("-", "_"))


def retag(path, plat):
    """Rewrites the wheel at `path` with platform tag `plat` (its WHEEL's
    Tag lines and its file name); returns the new file's base name."""
    from wheel.wheelfile import WheelFile
    d, name = os.path.split(path)
    dist, version, py, abi, _old = name[:-len(".whl")].split("-")
    new = "%s-%s-%s-%s-%s.whl" % (dist, version, py, abi, plat)
    with zipfile.ZipFile(path) as src, WheelFile(os.path.join(d, new), "w") as dst:
        for info in src.infolist():
            if info.filename.endswith(".dist-info/RECORD"):
                continue  # WheelFile writes it anew
            data = src.read(info)
            if info.filename.endswith(".dist-info/WHEEL"):
                data = "".join("Tag: %s-%s-%s\n" % (py, abi, plat) if ln.startswith("Tag: ") else ln
                               for ln in data.decode().splitlines(True)).encode()
            dst.writestr(info, data)
    if new != name:
        os.unlink(path)
    return new


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """meson-python's wheel, retagged with platform_tag()."""
    name = mesonpy.build_wheel(wheel_directory, config_settings, metadata_directory)
    plat = platform_tag()
    if plat is None:
        return name
    return retag(os.path.join(wheel_directory, name), plat)
