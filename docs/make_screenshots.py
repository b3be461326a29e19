"""Renders an execution report and a plan picture of a real computation, then screenshots both
with headless Chromium (Debian package `chromium`) into docs/:

    .venv/bin/python docs/make_screenshots.py

The computation: the standard deviation of a @ a.T - a for a 3000 x 3000 random matrix in
blocks of 500, under a 64 MB memory budget, so the report shows spilling against the budget."""

import os
import shutil
import subprocess
import sys
import tempfile

import tegula as tg

HERE = os.path.dirname(os.path.abspath(__file__))


def screenshot(page, png, size):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("headless Chromium is needed: apt-get install chromium")
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
    shutil.rmtree(out)


if __name__ == "__main__":
    main()
