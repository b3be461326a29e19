//! Object storage — S3 and S3-compatible servers, Google Cloud Storage, Azure Blob Storage and
//! plain HTTP(S) — through `object_store`: opening a store from a URL and options, the one
//! tokio runtime its requests run on, and its errors turned into `std::io` errors of the right
//! kind with every credential removed from their text.
//!
//! Options take `object_store`'s configuration keys (`aws_access_key_id`, `aws_endpoint`,
//! `aws_region`, `aws_skip_signature`, `timeout`, `connect_timeout`, …; Google's and Azure's
//! likewise) plus tegula's own `max_retries` and `retry_timeout`. Credentials not given come
//! from the environment (`AWS_ACCESS_KEY_ID`, …) and, for S3, from the shared credentials and
//! config files (`aws_profile.rs`).

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::MicrosoftAzureBuilder;
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::http::HttpBuilder;
use object_store::prefix::PrefixStore;
use object_store::{ClientConfigKey, ObjectStore, ObjectStoreScheme, RetryConfig};
use futures::FutureExt;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tegula_core::{Result, TegulaError};

/// Options of a store: `(key, value)` pairs, as `object_store`'s builders take them.
pub type StorageOptions = Vec<(String, String)>;

/// Whether `url` names object storage (`s3://`, `gs://`, `az://`, `http(s)://`, …) rather
/// than a local path.
pub fn is_remote(url: &str) -> bool {
    const SCHEMES: [&str; 10] = ["s3", "s3a", "gs", "az", "adl", "azure", "abfs", "abfss", "http", "https"];
    url.split_once("://").is_some_and(|(scheme, _)| SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()))
}

/// A store opened at a URL: requests name keys below the URL's path.
pub(crate) struct Bucket {
    pub(crate) store: Arc<dyn ObjectStore>,
    /// The URL without user or password, for messages.
    pub(crate) url: String,
    /// Every credential given or found, removed from any message.
    secrets: Vec<String>,
    /// The options another process opens the same store with: those given, and the S3
    /// credentials, region and endpoint found in the environment or the AWS files.
    pub(crate) options: StorageOptions,
}

/// The S3 settings resolved in this process that other processes get explicitly.
const RESOLVED_S3: [(AmazonS3ConfigKey, &str); 5] = [
    (AmazonS3ConfigKey::AccessKeyId, "aws_access_key_id"),
    (AmazonS3ConfigKey::SecretAccessKey, "aws_secret_access_key"),
    (AmazonS3ConfigKey::Token, "aws_session_token"),
    (AmazonS3ConfigKey::Region, "aws_region"),
    (AmazonS3ConfigKey::Endpoint, "aws_endpoint"),
];

/// Option keys whose values are never credentials, so messages may show them. The value of
/// every other key is taken for one and removed from every message, whatever the key is named.
const PUBLIC_KEYS: [&str; 22] = [
    "aws_region", "region", "aws_default_region", "aws_endpoint", "aws_endpoint_url", "endpoint", "endpoint_url",
    "aws_allow_http", "allow_http", "aws_skip_signature", "google_skip_signature", "azure_skip_signature",
    "aws_virtual_hosted_style_request", "aws_imdsv1_fallback", "aws_unsigned_payload", "aws_checksum_algorithm",
    "timeout", "connect_timeout", "pool_idle_timeout", "max_retries", "retry_timeout", "azure_use_emulator",
];

/// The values of `options` that may be credentials, as they could appear in a message: each
/// value whole and, for a JSON document (a service account key), each of its strings and each
/// line of those, also as escaped in JSON text.
fn secrets_of(options: &[(String, String)]) -> Vec<String> {
    let mut secrets = Vec::new();
    for (key, value) in options {
        if PUBLIC_KEYS.contains(&key.to_ascii_lowercase().as_str()) || ["", "true", "false"].contains(&value.as_str()) {
            continue;
        }
        secrets.push(value.clone());
        if let Ok(document) = serde_json::from_str::<serde_json::Value>(value) {
            json_strings(&document, &mut secrets);
        }
    }
    let lines: Vec<String> = secrets.iter().flat_map(|s| s.lines().filter(|l| l.trim().len() >= 16).map(str::to_string)).collect();
    secrets.extend(lines);
    let escaped: Vec<String> = secrets.iter().map(|s| serde_json::Value::from(s.as_str()).to_string().trim_matches('"').to_string()).collect();
    secrets.extend(escaped);
    // Longest first, so a credential is removed whole before any part of it.
    secrets.retain(|s| s.len() >= 4);
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets.dedup();
    secrets
}

/// Every string of a JSON document longer than a few characters (`type` fields and the like
/// are left readable).
fn json_strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) if s.len() >= 8 => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| json_strings(v, out)),
        serde_json::Value::Object(fields) => fields.values().for_each(|v| json_strings(v, out)),
        _ => {}
    }
}

/// Refuses a URL whose path holds a `.` or `..` segment once percent-decoded, as the store
/// would see it: the URL parser resolves `%2e%2e` like `..`, so `grp/%2e%2e/other.zarr` would
/// name something beside the group, for reads and writes alike.
fn check_path_segments(url: &str) -> Result<()> {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = after_scheme.find('/').map_or("", |i| &after_scheme[i..]);
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    if decoded.split(['/', '\\', '?', '#']).any(|segment| segment == "." || segment == "..") {
        return Err(tegula_core::value_err!(
            "{}: a path holding '.' or '..' segments (in any encoding, such as %2e%2e) is refused: it could name objects outside the array",
            shown(url)
        ));
    }
    Ok(())
}

/// Refuses an endpoint that is not a plain `http://` or `https://` URL of a host: one without
/// a scheme (`127.0.0.1:9000`), or holding a user or password, would fail deep inside the
/// client rather than here.
fn check_endpoint(key: &str, value: &str) -> Result<()> {
    let parsed = url::Url::parse(value);
    let fine = parsed.as_ref().is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty()) && u.username().is_empty() && u.password().is_none()
    });
    if !fine {
        return Err(tegula_core::value_err!(
            "storage option {key}={:?} is not an endpoint URL such as http://127.0.0.1:9000 (a scheme, a host, an optional port; no user or password)",
            shown(value)
        ));
    }
    Ok(())
}

impl Bucket {
    pub(crate) fn open(url: &str, options: &[(String, String)]) -> Result<Bucket> {
        let parsed = url::Url::parse(url).map_err(|e| tegula_core::value_err!("{}: not a URL tegula opens: {e}", shown(url)))?;
        check_path_segments(url)?;
        for (key, value) in options {
            let key_lower = key.to_ascii_lowercase();
            if key_lower.ends_with("endpoint") || key_lower.ends_with("endpoint_url") {
                check_endpoint(key, value)?;
            }
        }
        let mut display = parsed.clone();
        let _ = display.set_username("");
        let _ = display.set_password(None);
        let display = display.to_string().trim_end_matches('/').to_string();
        let mut secrets = secrets_of(options);
        secrets.extend(parsed.password().map(str::to_string));
        let (scheme, path) =
            ObjectStoreScheme::parse(&parsed).map_err(|e| tegula_core::value_err!("{display}: not a URL tegula opens: {e}"))?;
        let mut resolved: StorageOptions = options.to_vec();
        let (tegula_options, options): (Vec<_>, Vec<_>) =
            options.iter().partition(|(k, _)| ["max_retries", "retry_timeout"].contains(&k.as_str()));
        let retry = retry_config(&tegula_options, &display)?;
        let given = secrets.clone();
        let config = |e: object_store::Error| tegula_core::value_err!("{display}: {}", redact(&e.to_string(), &given));
        let store: Arc<dyn ObjectStore> = match scheme {
            ObjectStoreScheme::AmazonS3 => {
                let mut builder = crate::aws_profile::with_profile(AmazonS3Builder::from_env()).with_url(url).with_retry(retry);
                for (k, v) in &options {
                    builder = builder.with_config(k.to_ascii_lowercase().parse().map_err(config)?, v);
                }
                // An `http://` endpoint (a local S3-compatible server) is meant, not refused.
                if builder.get_config_value(&AmazonS3ConfigKey::Endpoint).is_some_and(|e| e.starts_with("http://")) {
                    builder = builder.with_config(AmazonS3ConfigKey::Client(ClientConfigKey::AllowHttp), "true");
                }
                for key in [AmazonS3ConfigKey::AccessKeyId, AmazonS3ConfigKey::SecretAccessKey, AmazonS3ConfigKey::Token] {
                    secrets.extend(builder.get_config_value(&key));
                }
                // What the environment and the AWS files gave travels with the array, so worker
                // processes (whose environment may differ) sign as this one does.
                for (key, name) in RESOLVED_S3 {
                    if let Some(value) = builder.get_config_value(&key).filter(|_| !options.iter().any(|(k, _)| k == name)) {
                        resolved.push((name.to_string(), value));
                    }
                }
                Arc::new(builder.build().map_err(config)?)
            }
            ObjectStoreScheme::GoogleCloudStorage => {
                let mut builder = GoogleCloudStorageBuilder::from_env().with_url(url).with_retry(retry);
                for (k, v) in &options {
                    builder = builder.with_config(k.to_ascii_lowercase().parse().map_err(config)?, v);
                }
                Arc::new(builder.build().map_err(config)?)
            }
            ObjectStoreScheme::MicrosoftAzure => {
                let mut builder = MicrosoftAzureBuilder::from_env().with_url(url).with_retry(retry);
                for (k, v) in &options {
                    builder = builder.with_config(k.to_ascii_lowercase().parse().map_err(config)?, v);
                }
                Arc::new(builder.build().map_err(config)?)
            }
            ObjectStoreScheme::Http => {
                let base = &parsed[..url::Position::BeforePath];
                let mut builder = HttpBuilder::new().with_url(base).with_retry(retry);
                for (k, v) in &options {
                    builder = builder.with_config(k.to_ascii_lowercase().parse().map_err(config)?, v);
                }
                if base.starts_with("http://") {
                    builder = builder.with_config(ClientConfigKey::AllowHttp, "true");
                }
                Arc::new(builder.build().map_err(config)?)
            }
            _ => {
                return Err(tegula_core::value_err!("{display}: not object storage (open local paths directly)"))
            }
        };
        secrets.retain(|s| !s.is_empty());
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        let store: Arc<dyn ObjectStore> = if path.as_ref().is_empty() { store } else { Arc::new(PrefixStore::new(store, path)) };
        Ok(Bucket { store, url: display, secrets, options: resolved })
    }

    /// `text` with every credential of this store replaced by `***`.
    pub(crate) fn redact(&self, text: &str) -> String {
        redact(text, &self.secrets)
    }

    /// An `object_store` error as an `std::io` error of its kind (missing, refused, other),
    /// its text naming `key` below this store's URL and holding no credential.
    pub(crate) fn io_error(&self, key: &str, e: object_store::Error) -> std::io::Error {
        use std::io::ErrorKind;
        let text = self.redact(&e.to_string());
        let kind = match &e {
            object_store::Error::NotFound { .. } => ErrorKind::NotFound,
            object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. } => ErrorKind::PermissionDenied,
            // Some requests (listings) report a refusal as a generic error with its status.
            _ if text.contains("403 Forbidden") || text.contains("401 Unauthorized") => ErrorKind::PermissionDenied,
            _ => ErrorKind::Other,
        };
        std::io::Error::new(kind, format!("{}/{key}: {text}", self.url))
    }

}

fn redact(text: &str, secrets: &[String]) -> String {
    secrets.iter().filter(|s| !s.is_empty()).fold(text.to_string(), |text, secret| text.replace(secret.as_str(), "***"))
}

/// `url` as shown in messages: without anything between `://` and `@`.
fn shown(url: &str) -> String {
    match (url.find("://"), url.find('@')) {
        (Some(start), Some(at)) if at > start => format!("{}{}", &url[..start + 3], &url[at + 1..]),
        _ => url.to_string(),
    }
}

/// Retries with exponential backoff on throttling, 5xx and dropped connections (object_store's
/// policy), bounded by `max_retries` (default 10) and `retry_timeout` (seconds, default 180),
/// so a store that stops answering is an error within a bounded time.
fn retry_config(options: &[&(String, String)], url: &str) -> Result<RetryConfig> {
    let mut retry = RetryConfig::default();
    for (key, value) in options {
        let bad = || tegula_core::value_err!("{url}: option {key}={value:?} is not a number");
        match key.as_str() {
            "max_retries" => retry.max_retries = value.parse().map_err(|_| bad())?,
            _ => retry.retry_timeout = Duration::from_secs_f64(value.parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0).ok_or_else(bad)?),
        }
    }
    Ok(retry)
}

/// Runs `future` to completion on the process's I/O runtime, from a thread outside it (an
/// executor's thread, which waits while many requests are in flight).
pub(crate) fn block_on<F: Future>(future: F) -> Result<F::Output> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    let runtime = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("tegula-io")
            .enable_all()
            .build()
            .map_err(|e| e.to_string())
    });
    match runtime {
        // A panic inside the client (a bug, or input it did not expect) is an error of this
        // request, never an unwinding through the caller's threads.
        Ok(runtime) => runtime.block_on(std::panic::AssertUnwindSafe(future).catch_unwind()).map_err(|panic| {
            let what = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
            TegulaError::Io(format!("the object storage client failed: {}", what.unwrap_or_else(|| "it panicked".into())))
        }),
        Err(e) => Err(TegulaError::Io(format!("starting the object storage client: {e}"))),
    }
}

/// A storage error of `zarrs` as tegula's error of the same kind, naming what was done.
pub(crate) fn storage_error(what: &str, e: &zarrs::storage::StorageError) -> TegulaError {
    use std::io::ErrorKind;
    match e {
        zarrs::storage::StorageError::IOError(io) if io.kind() == ErrorKind::NotFound => TegulaError::NotFound(format!("{what}: {io}")),
        zarrs::storage::StorageError::IOError(io) if io.kind() == ErrorKind::PermissionDenied => {
            TegulaError::Permission(format!("{what}: {io}"))
        }
        other => TegulaError::Io(format!("{what}: {other}")),
    }
}
