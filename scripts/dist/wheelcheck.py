#!/usr/bin/env python3
"""Checks one wheel that scripts/dist/wheel.py wrote, with the standard library only.

Refuses (exit 1, one line on stderr per fault) a wheel whose RECORD does not
list every entry once with its sha256 and size, whose WHEEL tags are not the
ones its file name carries, whose version is not VERSION, or whose binary
in .data/scripts is not byte for byte the release binary BINARY (the one
SHA256SUMS lists).

Usage: scripts/dist/wheelcheck.py WHEEL VERSION BINARY
"""

import base64
import csv
import hashlib
import io
import os
import sys
import zipfile


def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def check(wheel, version, binary):
    faults = []
    name = os.path.basename(wheel)
    parts = name[: -len(".whl")].split("-")
    if len(parts) != 5 or parts[1] != version:
        return [f"{name}: file name is not session_starter-{version}-py3-none-PLATFORM.whl"]
    want_tags = sorted(f"py3-none-{p}" for p in parts[4].split("."))
    info = f"session_starter-{version}.dist-info"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        if len(set(names)) != len(names):
            faults.append(f"{name}: an entry is in the archive twice")
        try:
            record = zf.read(f"{info}/RECORD").decode("utf-8")
        except KeyError:
            return [f"{name}: no {info}/RECORD"]
        listed = {}
        for row in csv.reader(io.StringIO(record)):
            if row[0] in listed:
                faults.append(f"{name}: RECORD lists {row[0]} twice")
            listed[row[0]] = row[1:]
        for entry in names:
            if entry not in listed:
                faults.append(f"{name}: {entry} is not in RECORD")
                continue
            if entry == f"{info}/RECORD":
                continue
            data = zf.read(entry)
            if listed[entry] != [digest(data), str(len(data))]:
                faults.append(f"{name}: {entry}: its hash or size is not the one RECORD lists")
        for entry in listed:
            if entry not in names:
                faults.append(f"{name}: RECORD lists {entry}, which is not in the archive")
        wheel_file = zf.read(f"{info}/WHEEL").decode("ascii").splitlines()
        tags = sorted(line[len("Tag: ") :] for line in wheel_file if line.startswith("Tag: "))
        if tags != want_tags:
            faults.append(f"{name}: WHEEL says {tags}, the file name {want_tags}")
        meta = zf.read(f"{info}/METADATA").decode("utf-8").splitlines()
        if f"Version: {version}" not in meta:
            faults.append(f"{name}: METADATA does not say Version: {version}")
        scripts = [n for n in names if n.startswith(f"session_starter-{version}.data/scripts/")]
        if len(scripts) != 1:
            faults.append(f"{name}: want one binary in .data/scripts, have {scripts}")
        else:
            with open(binary, "rb") as f:
                release = f.read()
            if zf.read(scripts[0]) != release:
                faults.append(f"{name}: {scripts[0]} is not the release binary {os.path.basename(binary)}: refused")
            mode = zf.getinfo(scripts[0]).external_attr >> 16
            if mode & 0o111 == 0:
                faults.append(f"{name}: {scripts[0]} is not executable (mode {mode:o})")
    return faults


def main(argv):
    if len(argv) != 3:
        print("usage: scripts/dist/wheelcheck.py WHEEL VERSION BINARY", file=sys.stderr)
        return 2
    faults = check(*argv)
    for f in faults:
        print(f"wheelcheck: {f}", file=sys.stderr)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
