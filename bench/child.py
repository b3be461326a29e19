"""Runs one measurement in a fresh process: the script itself again with the given arguments,
its last stdout line read as JSON, and the peak RSS the kernel reports for it (wait4's
ru_maxrss: the whole process: interpreter, libraries, data)."""

import json
import os
import subprocess
import sys


def run_child(script, args, env=None):
    """The child's JSON result (``{"failed": status}`` if it failed) with ``peak_rss_mb``."""
    proc = subprocess.Popen([sys.executable, script, "--child", *args], stdout=subprocess.PIPE, text=True, env=env)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    result = json.loads(out.strip().splitlines()[-1]) if status == 0 else {"failed": status}
    result["peak_rss_mb"] = usage.ru_maxrss / 1024
    return result
