"""Hypothesis profiles for the Python suite.

``ci`` (the default) is derandomized, so every run checks the same examples and the suite
stays within a few minutes on two cores. ``brief`` is ``ci`` with a quarter of its examples:
the second pass of ``scripts/test.sh``, which runs the suite again on the process pool to
check that executor, not the operations once more. ``explore`` draws new random examples on
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
