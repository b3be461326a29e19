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


# fsspec's names of the same settings, per service (Google's token: see _google_token).
_RENAMED = {
    "aws": {"key": "aws_access_key_id", "secret": "aws_secret_access_key", "token": "aws_session_token",
            "endpoint_url": "aws_endpoint", "region_name": "aws_region", "region": "aws_region"},
    "google": {"project": None},
    "azure": {"account_name": "azure_storage_account_name", "account_key": "azure_storage_account_key",
              "sas_token": "azure_storage_sas_key", "connection_string": None},
}
_SKIP_SIGNATURE = {"aws": "aws_skip_signature", "google": "google_skip_signature", "azure": "azure_skip_signature"}


def _google_token(token):
    """gcsfs's ``token`` as the Rust client's option: a service account key (a dict, or its
    JSON text) as the key itself, a path as the file holding it; ``"anon"`` signs nothing, and
    ``"google_default"``/``"cloud"`` leave the credentials to the environment."""
    import json

    if isinstance(token, dict):
        return [("google_service_account_key", json.dumps(token))]
    if not isinstance(token, (str, os.PathLike)):
        raise TypeError(f"storage option 'token' must be a dict, JSON text or a path, not {type(token).__name__}")
    token = os.fspath(token)
    if token == "anon":
        return [("google_skip_signature", "true")]
    if token in ("google_default", "cloud"):
        return []
    if token.lstrip().startswith("{"):
        return [("google_service_account_key", token)]
    return [("google_service_account", token)]


def _checked_endpoint(value):
    if not isinstance(value, str):
        raise TypeError(f"storage option 'endpoint_url' must be a URL such as 'http://127.0.0.1:9000', not {type(value).__name__}")
    return value


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
        if key == "token" and service == "google":
            pairs.extend(_google_token(value))
            continue
        if key == "endpoint_url":
            value = _checked_endpoint(value)
        pairs.append((renamed.get(key, key), _text(value)))
    return pairs


def join(url, component):
    """``url`` with the path ``component`` (already checked) below it."""
    return url.rstrip("/") + "/" + component if component else url
