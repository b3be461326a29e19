"""Child Python processes that a test interrupts as a user's terminal does (SIGINT)."""

import subprocess
import sys

# A shell that ignores SIGINT (a background job of a non-interactive shell, as CI may start
# the suite) passes SIG_IGN on to every process it starts, and Python then installs no
# KeyboardInterrupt handler. The child gets back the handler a terminal session gives it.
_INTERRUPTIBLE = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"


def interruptible(code, *args):
    """Starts ``python -c code args`` in which Ctrl-C raises KeyboardInterrupt, with its output
    and errors as text on one pipe (``proc.stdout``)."""
    return subprocess.Popen([sys.executable, "-c", _INTERRUPTIBLE + code, *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
