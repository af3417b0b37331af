"""python -m session_starter: run the binary with these arguments.

On POSIX the Python process replaces itself with the binary (os.execv), so
nothing of Python is left between the caller and session-starter. Windows
has no exec: there the binary runs as a child, a console's Ctrl-C reaches
both, and this process exits with the binary's status.
"""

import os
import subprocess
import sys

from session_starter import BinaryNotFoundError, binary_path

# The shell's status for a command that is not there.
_EXIT_NOT_FOUND = 127


def main() -> None:
    try:
        binary = binary_path()
    except BinaryNotFoundError as err:
        print(err, file=sys.stderr)
        sys.exit(_EXIT_NOT_FOUND)
    args = [binary, *sys.argv[1:]]
    if os.name != "nt":
        os.execv(binary, args)
    proc = subprocess.Popen(args)
    while True:
        try:
            sys.exit(proc.wait())
        except KeyboardInterrupt:
            # The binary got the same Ctrl-C and ends the session; its
            # status is still to come.
            continue


if __name__ == "__main__":
    main()
