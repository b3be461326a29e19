"""The live view in a notebook: a real Jupyter kernel (ipykernel, driven by nbclient as
Jupyter drives it) runs a cell whose computation lasts a few seconds; while it runs the cell's
output shows the live page (the dashboard embedded in an IFrame), and that page, opened in
headless Chromium from the cell's output, follows the computation to its end."""

import html
import re
import urllib.request
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from cdp import Browser

# The kernel is a process of its own: it finds the tests' helpers where this file lies.
SETUP = f"""\
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
import numpy as np
import tegula as tg
from dashboard_check import sleepy_expression
board = tg.dashboard(port=0, show=False)
"""

# 10 blocks of a fifth of a second on two threads: a second, past the half second after which
# the view shows itself in the cell.
RUN = """\
y, expected = sleepy_expression(10)
got = y.compute(scheduler="threads", num_workers=2)
np.testing.assert_allclose(got, expected)
print("computed", y.task_count(), "tasks")
"""


def test_a_cell_shows_the_live_page_while_it_computes():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SETUP), nbformat.v4.new_code_cell(RUN)])
    client = NotebookClient(notebook, timeout=180, kernel_name="python3")
    with client.setup_kernel():
        client.execute_cell(notebook.cells[0], 0)
        client.execute_cell(notebook.cells[1], 1)
        outputs = notebook.cells[1].outputs
        frames = [i for i, o in enumerate(outputs) if "<iframe" in o.get("data", {}).get("text/html", "")]
        printed = [i for i, o in enumerate(outputs) if o.output_type == "stream"]
        # One view, shown while the computation ran: before what the cell printed after it
        # (the progress bar is the other output).
        assert len(frames) == 1 and len(printed) == 1 and frames[0] < printed[0], outputs
        src = html.unescape(re.search(r'src="([^"]+)"', outputs[frames[0]].data["text/html"]).group(1))
        assert "embed=1" in src and "c=1" in src, src
        tasks = int(re.search(r"computed (\d+) tasks", outputs[printed[0]].text).group(1))
        with urllib.request.urlopen(src, timeout=30) as r:
            assert r.status == 200 and "<canvas" in r.read().decode()
        with Browser() as browser:
            page = browser.open(src)
            page.wait_for("document.getElementById('state').textContent.startsWith('finished')", timeout=60)
            shown = page.evaluate(
                "({done: Number(document.getElementById('done').textContent),"
                " total: Number(document.getElementById('total').textContent),"
                " embedded: document.body.classList.contains('embed'),"
                " rows: document.querySelectorAll('#stream-rows .row').length})"
            )
    assert shown == {"done": tasks, "total": tasks, "embedded": True, "rows": 2}
