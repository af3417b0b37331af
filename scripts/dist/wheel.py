#!/usr/bin/env python3
"""Builds session-starter's wheels, one per platform, with the standard library only.

Each wheel holds the release binary in <name>-<version>.data/scripts/, which
pip installs into the environment's scripts directory (bin/ of a venv), as
ruff's wheels do: no Python process stands between a caller and the binary.
Beside it is the session_starter module (launch(), launch_async(),
binary_path(); python -m session_starter), from scripts/dist/python.

The Linux and macOS wheels carry the man page and the bash completion in
<name>-<version>.data/data/share/, which pip installs under the
environment's prefix (a venv, ~/.local, /usr/local): man finds
share/man beside a bin/ on PATH, and bash-completion (2.9 and later)
finds share/bash-completion/completions beside it, or in ~/.local/share
and /usr/local/share. zsh and fish look in no place a wheel can reach,
and Windows has neither man nor bash-completion.

Tags: the binaries are static (CGO_ENABLED=0), so one Linux wheel fits glibc
and musl alike and carries both tag families, manylinux_2_17 (=
manylinux2014, the oldest tag for aarch64) and musllinux_1_2, as ruff's
separate glibc and musl wheels are tagged. macOS wheels say 12.0, the oldest
macOS that Go 1.26's binaries run on (its linker writes minos 12.0). No
FreeBSD wheel: PyPI takes no FreeBSD tag.

Reproducible: entries in a fixed order, each dated SOURCE_DATE_EPOCH (zip
time has no time zone and starts in 1980: the date is taken in UTC and
clamped to 1980-01-01), modes fixed, RECORD with sha256 hashes last.

Usage: scripts/dist/wheel.py VERSION BINDIR OUTDIR
  (SOURCE_DATE_EPOCH from the environment; make dist sets it)
"""

import base64
import hashlib
import os
import re
import sys
import time
import zipfile

NAME = "session-starter"
# The distribution name as file names spell it (PEP 427, PEP 503).
DIST = "session_starter"
SUMMARY = "Run a program so that every process it starts ends with it"
HOMEPAGE = "https://github.com/session-starter/session-starter"

# (GOOS, GOARCH) -> the wheel's platform tags, most specific first.
PLATFORMS = {
    ("linux", "amd64"): ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_2_x86_64"],
    ("linux", "arm64"): ["manylinux_2_17_aarch64", "manylinux2014_aarch64", "musllinux_1_2_aarch64"],
    ("darwin", "amd64"): ["macosx_12_0_x86_64"],
    ("darwin", "arm64"): ["macosx_12_0_arm64"],
    ("windows", "amd64"): ["win_amd64"],
    ("windows", "arm64"): ["win_arm64"],
}

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE_DIR = os.path.join(HERE, "python", "session_starter")
MODULE_FILES = ["__init__.py", "__main__.py", "_aio.py", "_call.py", "_mcp.py", "_reclaim.py", "_records.py", "_session.py", "py.typed"]
README = os.path.join(HERE, "python", "README.md")
LICENSE = os.path.join(HERE, os.pardir, os.pardir, "LICENSE")
# The man page and the bash completion, generated from the flags, and
# where each goes below the data scheme's prefix.
DOCS_DIR = os.path.join(HERE, os.pardir, os.pardir, "cmd", "session-starter", "docs")
SHARED_DOCS = [
    ("session-starter.1", "share/man/man1/session-starter.1"),
    ("session-starter.bash", "share/bash-completion/completions/session-starter"),
]

# The oldest date a zip entry can carry.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def pep440(version):
    """The PEP 440 spelling of a semver version: 1.2.3, 1.2.3-rc.1 -> 1.2.3rc1."""
    m = re.fullmatch(r"(\d+\.\d+\.\d+)(?:-(alpha|beta|rc)\.(\d+))?", version)
    if not m:
        raise ValueError(f"version {version!r}: want X.Y.Z or X.Y.Z-(alpha|beta|rc).N")
    base, pre, n = m.groups()
    if pre is None:
        return base
    return base + {"alpha": "a", "beta": "b", "rc": "rc"}[pre] + n


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def metadata(version):
    with open(README, encoding="utf-8") as f:
        description = f.read()
    headers = [
        ("Metadata-Version", "2.1"),
        ("Name", NAME),
        ("Version", version),
        ("Summary", SUMMARY),
        ("Home-page", HOMEPAGE),
        ("License", "Apache-2.0"),
        ("Project-URL", f"Source, {HOMEPAGE}"),
        ("Project-URL", f"Issues, {HOMEPAGE}/issues"),
        ("Classifier", "License :: OSI Approved :: Apache Software License"),
        ("Classifier", "Operating System :: POSIX :: Linux"),
        ("Classifier", "Operating System :: MacOS"),
        ("Classifier", "Operating System :: Microsoft :: Windows"),
        ("Classifier", "Topic :: System :: Monitoring"),
        ("Requires-Python", ">=3.8"),
        ("Description-Content-Type", "text/markdown"),
    ]
    head = "".join(f"{k}: {v}\n" for k, v in headers)
    return (head + "\n" + description).encode("utf-8")


def wheel_file(tags):
    lines = [
        "Wheel-Version: 1.0",
        "Generator: session-starter scripts/dist/wheel.py",
        # Not pure: the wheel holds a platform's binary (platlib).
        "Root-Is-Purelib: false",
    ]
    lines += [f"Tag: py3-none-{t}" for t in tags]
    return ("\n".join(lines) + "\n").encode("ascii")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def build(version, bindir, outdir, goos, goarch, date_time):
    """Writes one wheel and returns its path."""
    pyversion = pep440(version)
    tags = PLATFORMS[(goos, goarch)]
    exe = ".exe" if goos == "windows" else ""
    binary = os.path.join(bindir, f"{NAME}-{version}-{goos}-{goarch}{exe}")
    data_dir = f"{DIST}-{pyversion}.data"
    info_dir = f"{DIST}-{pyversion}.dist-info"

    # (name in the wheel, bytes, executable)
    entries = []
    for f in MODULE_FILES:
        data = read(os.path.join(MODULE_DIR, f))
        if f == "__init__.py":
            stamped, n = re.subn(
                rb'^__version__ = "[^"]*"$',
                f'__version__ = "{pyversion}"'.encode("ascii"),
                data,
                flags=re.M,
            )
            if n != 1:
                raise ValueError(f"{f}: no __version__ line to stamp")
            data = stamped
        entries.append((f"session_starter/{f}", data, False))
    entries.append((f"{data_dir}/scripts/{NAME}{exe}", read(binary), True))
    if goos != "windows":
        for src, dest in SHARED_DOCS:
            entries.append((f"{data_dir}/data/{dest}", read(os.path.join(DOCS_DIR, src)), False))
    entries.append((f"{info_dir}/METADATA", metadata(pyversion), False))
    entries.append((f"{info_dir}/WHEEL", wheel_file(tags), False))
    entries.append((f"{info_dir}/LICENSE", read(LICENSE), False))

    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data, _ in entries)
    record += f"{info_dir}/RECORD,,\n"
    entries.append((f"{info_dir}/RECORD", record.encode("utf-8"), False))

    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, f"{DIST}-{pyversion}-py3-none-{'.'.join(tags)}.whl")
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w") as zf:
        for name, data, executable in entries:
            info = zipfile.ZipInfo(name, date_time=date_time)
            info.create_system = 3  # Unix, so that external_attr holds a mode.
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data, compresslevel=9)
    os.replace(tmp, path)
    return path


def main(argv):
    if len(argv) != 3:
        print("usage: scripts/dist/wheel.py VERSION BINDIR OUTDIR", file=sys.stderr)
        return 2
    version, bindir, outdir = argv
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    date_time = max(time.gmtime(epoch)[:6], ZIP_EPOCH)
    for goos, goarch in PLATFORMS:
        print(build(version, bindir, outdir, goos, goarch, date_time))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError) as err:
        print(f"wheel.py: {err}", file=sys.stderr)
        sys.exit(1)
