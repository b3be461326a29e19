"""Hypothesis profiles for the Python suite.

``ci`` (the default) is derandomized, so every run checks the same examples and the suite
stays within a few minutes on two cores. ``brief`` is ``ci`` with a quarter of its examples:
the second pass of ``scripts/test.sh``, which runs the suite again on the process pool to
check that executor, not the operations once more (without the modules
``SCHEDULER_INDEPENDENT`` names). ``explore`` draws new random examples on
every run and many more of them: ``TEGULA_HYPOTHESIS_PROFILE=explore pytest tests``.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

_common = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile("ci", max_examples=100, derandomize=True, print_blob=True, **_common)
settings.register_profile("brief", parent=settings.get_profile("ci"), max_examples=25)
settings.register_profile("explore", max_examples=1000, **_common)
settings.load_profile(os.environ.get("TEGULA_HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def tmp(tmp_path):
    """A fresh directory for one test, as a string path."""
    return str(tmp_path)


@pytest.fixture(scope="session")
def s3(tmp_path_factory):
    """An S3-compatible server (``rclone serve s3``) on the loopback address for the whole
    session, with a bucket ``arrays`` (see ``object_servers.py``)."""
    from object_servers import S3Server

    server = S3Server(str(tmp_path_factory.mktemp("s3")))
    try:
        yield server
    finally:
        server.stop()


# Modules the process-pool pass (scripts/test.sh's second run, TEGULA_SCHEDULER=processes)
# leaves out, because the default scheduler changes nothing in them: they name their
# executors themselves (Ray's and Dask's clusters; the executor comparisons; the live view's,
# whose page is watched on threads and on the process pool by name), never compute,
# or run their cases in child processes of their own. The first pass runs them all.
SCHEDULER_INDEPENDENT = {
    "test_ray.py", "test_dask.py", "test_executors.py", "test_cli.py",
    "test_docstrings.py", "test_html.py", "test_simulate.py", "test_dashboard.py", "test_notebook.py",
}


def pytest_collection_modifyitems(config, items):
    if os.environ.get("TEGULA_SCHEDULER") != "processes":
        return
    left_out = [item for item in items if item.path.name in SCHEDULER_INDEPENDENT]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item.path.name not in SCHEDULER_INDEPENDENT]
