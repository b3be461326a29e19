"""Renders an execution report and a plan picture of a real computation, and the live view
(``tg.dashboard``) while one runs, then screenshots them with headless Chromium (`bash
scripts/browser.sh` installs Debian's) into docs/:

    .venv/bin/python docs/make_screenshots.py

The computation: the standard deviation of a @ a.T - a for a random matrix in blocks of 500,
under a 64 MB memory budget, so the report and the live view show spilling against the budget
(3000 x 3000 for the report; 6000 x 6000, about ten seconds on two cores, for the live view)."""

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import tegula as tg

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from cdp import Browser, executable  # noqa: E402 - the tests' DevTools driver


def screenshot(page, png, size):
    browser = executable()
    if browser is None:
        sys.exit("headless Chromium is needed: bash scripts/browser.sh")
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={size}",
         f"--screenshot={png}", "file://" + page],
        check=True, capture_output=True,
    )
    print("wrote", png)


def main():
    a = tg.random.default_rng(0).random((3000, 3000), chunks=500)
    y = (a @ a.T - a).std()
    out = tempfile.mkdtemp()
    report = os.path.join(out, "report.html")
    with tg.config.set(memory="64MB", spill_dir=out), tg.report(report):
        print("std:", float(y.compute()))
    small = tg.random.default_rng(0).random((2000, 2000), chunks=1000)
    plan = os.path.join(out, "plan.html")
    (small @ small.T - small).std().visualize(filename=plan, level="tasks")
    screenshot(report, os.path.join(HERE, "report.png"), "1120,1500")
    screenshot(plan, os.path.join(HERE, "plan.png"), "1200,560")
    live_view(out, os.path.join(HERE, "dashboard.png"))
    shutil.rmtree(out)


def live_view(out, png):
    """The live view four seconds into a computation."""
    board = tg.dashboard(port=0, show=False)
    a = tg.random.default_rng(1).random((6000, 6000), chunks=500)
    y = (a @ a.T - a).std()

    def run():
        with tg.config.set(memory="64MB", spill_dir=out):
            y.compute()

    worker = threading.Thread(target=run)
    with Browser(1400, 1000) as browser:
        page = browser.open(board.link)
        worker.start()
        page.wait_for("Number(document.getElementById('done').textContent) > 0")
        time.sleep(4)
        page.screenshot(png)
    worker.join()
    board.close()
    print("wrote", png)


if __name__ == "__main__":
    main()
