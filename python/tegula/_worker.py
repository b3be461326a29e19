"""A worker process of tegula's process pool (``compute(scheduler="processes")``).

The pool starts ``python -m tegula._worker PATH...`` (the starting process's module search
path, so that functions pickled by reference to the modules it imported unpickle here) and
talks to it over its standard input and output; the loop itself runs in Rust (``_tegula.serve_worker``), which reads a plan fragment,
runs it and answers, until its input closes. Output a user's function prints goes to
standard error, never into the pool's messages; Ctrl-C is the pool's process's to handle.
"""

import os
import signal
import sys


def main():
    sys.path[:0] = [p for p in sys.argv[1:] if p not in sys.path]
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests, answers = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    from tegula import _tegula

    _tegula.serve_worker(requests, answers)


if __name__ == "__main__":
    main()
