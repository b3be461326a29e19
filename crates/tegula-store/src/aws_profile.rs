//! S3 credentials and region from the AWS shared files, as the AWS tools read them: the
//! profile `AWS_PROFILE` (else `default`) of `AWS_SHARED_CREDENTIALS_FILE` (else
//! `~/.aws/credentials`) and of `AWS_CONFIG_FILE` (else `~/.aws/config`, where the section is
//! `[profile NAME]`). Anything the environment or the caller's options give wins.

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use std::path::PathBuf;

/// `builder` with what the profile holds and the builder lacks.
pub(crate) fn with_profile(mut builder: AmazonS3Builder) -> AmazonS3Builder {
    let profile = std::env::var("AWS_PROFILE").unwrap_or_else(|_| "default".into());
    let file = |variable: &str, name: &str| {
        std::env::var_os(variable)
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".aws").join(name)))
    };
    let mut set = |key: AmazonS3ConfigKey, value: Option<String>| {
        if let Some(value) = value.filter(|_| builder.get_config_value(&key).is_none()) {
            builder = std::mem::take(&mut builder).with_config(key, value);
        }
    };
    if let Some(section) = file("AWS_SHARED_CREDENTIALS_FILE", "credentials").and_then(|f| section(&f, &profile)) {
        // Keys only as a pair: a lone secret would sign with another profile's key.
        let key = lookup(&section, "aws_access_key_id");
        if key.is_some() {
            set(AmazonS3ConfigKey::AccessKeyId, key);
            set(AmazonS3ConfigKey::SecretAccessKey, lookup(&section, "aws_secret_access_key"));
            set(AmazonS3ConfigKey::Token, lookup(&section, "aws_session_token"));
        }
    }
    let config_name = if profile == "default" { profile.clone() } else { format!("profile {profile}") };
    if let Some(section) = file("AWS_CONFIG_FILE", "config").and_then(|f| section(&f, &config_name)) {
        set(AmazonS3ConfigKey::Region, lookup(&section, "region"));
        set(AmazonS3ConfigKey::Endpoint, lookup(&section, "endpoint_url"));
    }
    builder
}

/// The `key = value` lines of section `[name]` of the INI file at `path`.
fn section(path: &PathBuf, name: &str) -> Option<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut inside = false;
    let mut found = None::<Vec<(String, String)>>;
    for line in text.lines().map(str::trim) {
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = header.trim() == name;
            if inside {
                found.get_or_insert_with(Vec::new);
            }
        } else if let (true, Some((k, v))) = (inside, line.split_once('=')) {
            found.get_or_insert_with(Vec::new).push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    found
}

fn lookup(section: &[(String, String)], key: &str) -> Option<String> {
    section.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

#[cfg(test)]
mod tests {
    use super::section;

    #[test]
    fn reads_one_section_of_an_ini_file() {
        let dir = std::env::temp_dir().join(format!("tegula-aws-profile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("credentials");
        std::fs::write(&file, "# c\n[default]\naws_access_key_id = A\n\n[profile other]\nregion=eu-west-1\n; x\nAWS_SECRET_ACCESS_KEY = S\n").unwrap();
        assert_eq!(section(&file, "default").unwrap(), vec![("aws_access_key_id".to_string(), "A".to_string())]);
        let other = section(&file, "profile other").unwrap();
        assert_eq!(other[1], ("aws_secret_access_key".to_string(), "S".to_string()));
        assert!(section(&file, "missing").is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
