"""`python tests/file_limit.py BYTES SCRIPT ARGS…`: SCRIPT run as ``__main__`` in a process where no file may
grow past BYTES (RLIMIT_FSIZE) and SIGXFSZ is ignored, so a write past that point fails with OSError EFBIG
("File too large") the way a write on a full disk fails with ENOSPC: a full disk without root or a small
filesystem. Files already longer than BYTES can be read, not written past BYTES."""

import resource
import runpy
import signal
import sys
from pathlib import Path

if __name__ == "__main__":
    limit = int(sys.argv[1])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the kernel ends the process instead of failing the write
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    sys.argv = sys.argv[2:]
    sys.path[0] = str(Path(sys.argv[0]).resolve().parent)  # as if SCRIPT had been run itself
    runpy.run_path(sys.argv[0], run_name="__main__")
