"""``storage_options`` as fsspec (s3fs, gcsfs, adlfs) takes them, turned into the
configuration keys of the Rust object-store client: ``key``/``secret``/``token``,
``anon``, ``endpoint_url`` (also in ``client_kwargs``), ``region_name``. Other keys pass
through as the client's own (``aws_region``, ``timeout``, ``max_retries``, ...); one it does
not know is a ``ValueError`` naming it. Credentials not given come from the environment and,
for S3, from ``~/.aws/credentials`` and ``~/.aws/config``."""

import os

REMOTE_SCHEMES = ("s3", "s3a", "gs", "az", "adl", "azure", "abfs", "abfss", "http", "https")


def is_remote(url):
    """Whether ``url`` names object storage rather than a local path."""
    text = os.fspath(url) if isinstance(url, os.PathLike) else url
    return isinstance(text, str) and "://" in text and text.split("://", 1)[0].lower() in REMOTE_SCHEMES


def _service(url):
    scheme = url.split("://", 1)[0].lower()
    if scheme in ("s3", "s3a"):
        return "aws"
    if scheme == "gs":
        return "google"
    if scheme in ("az", "adl", "azure", "abfs", "abfss"):
        return "azure"
    return None


# fsspec's names of the same settings, per service.
_RENAMED = {
    "aws": {"key": "aws_access_key_id", "secret": "aws_secret_access_key", "token": "aws_session_token",
            "endpoint_url": "aws_endpoint", "region_name": "aws_region", "region": "aws_region"},
    "google": {"token": "google_service_account", "project": None},
    "azure": {"account_name": "azure_storage_account_name", "account_key": "azure_storage_account_key",
              "sas_token": "azure_storage_sas_key", "connection_string": None},
}
_SKIP_SIGNATURE = {"aws": "aws_skip_signature", "google": "google_skip_signature", "azure": "azure_skip_signature"}


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def object_store_options(url, storage_options):
    """``(key, value)`` pairs of strings for the Rust client of ``url``'s service."""
    if not storage_options:
        return []
    if not isinstance(storage_options, dict):
        raise TypeError(f"storage_options must be a dict, not {type(storage_options).__name__}")
    service = _service(url)
    renamed = _RENAMED.get(service, {})
    options = dict(storage_options)
    client = options.pop("client_kwargs", None) or {}
    for name in ("endpoint_url", "region_name"):
        if name in client:
            options.setdefault(name, client.pop(name))
    if client:
        raise ValueError(f"storage_options client_kwargs {sorted(client)} are not supported by tegula")
    pairs = []
    for key, value in options.items():
        if value is None:
            continue
        if key == "anon":
            if value and service in _SKIP_SIGNATURE:
                pairs.append((_SKIP_SIGNATURE[service], "true"))
            continue
        if key in renamed and renamed[key] is None:
            raise ValueError(f"storage option {key!r} is not supported by tegula")
        pairs.append((renamed.get(key, key), _text(value)))
    return pairs


def join(url, component):
    """``url`` with the path ``component`` (already checked) below it."""
    return url.rstrip("/") + "/" + component if component else url
