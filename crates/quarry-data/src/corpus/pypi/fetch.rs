//! Fetching from PyPI: the JSON API's description of a release, and its files.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

use super::requirements::{is_project_name, is_version, Requirement};
use crate::corpus::archive::ArchiveKind;

/// PyPI's JSON API.
pub const PYPI_JSON_API: &str = "https://pypi.org/pypi";

/// Something that fetches a URL's body; the network in use, a table in tests.
pub trait Fetch {
    /// The body of `url`, at most `max_bytes` bytes; the error says what went wrong.
    fn get(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, String>;
}

/// Fetching over HTTPS with `ureq`.
pub struct Http {
    agent: ureq::Agent,
}

impl Default for Http {
    fn default() -> Http {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(30))
            .timeout(Duration::from_secs(600))
            .user_agent(concat!("quarry/", env!("CARGO_PKG_VERSION")))
            .tls_config(tls_config())
            .build();
        Http { agent }
    }
}

/// TLS trusting Mozilla's certificate authorities and the machine's own (a proxy's, say).
fn tls_config() -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports rustls's default protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(config)
}

impl Fetch for Http {
    fn get(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, String> {
        match self.agent.get(url).call() {
            Ok(response) => {
                quarry_stdx::read::read_limited(response.into_reader(), max_bytes, 0).map_err(|e| format!("{url}: {e}"))
            }
            Err(ureq::Error::Status(404, _)) => Err(format!("{url}: not found (HTTP 404)")),
            Err(ureq::Error::Status(code, response)) => Err(format!("{url}: HTTP {code} {}", response.status_text())),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// The source distribution of one release, as a manifest records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    /// The project's name as PyPI spells it.
    pub name: String,
    /// The release's version.
    pub version: String,
    /// Where its source distribution is.
    pub url: String,
    /// The sha256 PyPI gives for it, lower-case hex.
    pub sha256: String,
    /// Its licence, as the metadata states it.
    pub license: Option<String>,
}

#[derive(Deserialize)]
struct Project {
    info: Info,
    #[serde(default)]
    urls: Vec<File>,
}

#[derive(Deserialize)]
struct Info {
    name: String,
    version: String,
    license: Option<String>,
    license_expression: Option<String>,
    #[serde(default)]
    classifiers: Vec<String>,
}

#[derive(Deserialize)]
struct File {
    packagetype: String,
    url: String,
    filename: String,
    digests: Digests,
}

#[derive(Deserialize)]
struct Digests {
    sha256: String,
}

/// Largest JSON description read.
const MAX_JSON_BYTES: u64 = 64 * 1024 * 1024;

/// Looks up `requirement`'s release (the newest when not pinned) in the JSON API at `api`
/// and picks its source distribution: the first `.tar.gz`, else the first `.zip`. A file URL
/// relative to the JSON's (as some mirrors give) is made absolute.
pub fn resolve(fetch: &dyn Fetch, api: &str, requirement: &Requirement) -> Result<Release, String> {
    let url = match &requirement.version {
        Some(version) => format!("{api}/{}/{version}/json", requirement.name),
        None => format!("{api}/{}/json", requirement.name),
    };
    let body = fetch.get(&url, MAX_JSON_BYTES)?;
    let project: Project = serde_json::from_slice(&body).map_err(|e| format!("{url}: not PyPI's JSON: {e}"))?;
    let info = project.info;
    if !is_project_name(&info.name) || !is_version(&info.version) {
        return Err(format!("{url}: unusable name or version {:?} {:?}", info.name, info.version));
    }
    let sdists: Vec<&File> = project.urls.iter().filter(|f| f.packagetype == "sdist").collect();
    let pick = |kind| sdists.iter().find(|f| ArchiveKind::of(&f.filename) == Some(kind));
    let file = match pick(ArchiveKind::TarGz).or_else(|| pick(ArchiveKind::Zip)) {
        Some(file) => file,
        None if sdists.is_empty() => return Err(format!("{} {} has no source distribution", info.name, info.version)),
        None => return Err(format!("source distribution {} is neither .tar.gz nor .zip", sdists[0].filename)),
    };
    // A mirror may give the file's URL relative to the JSON's.
    let file_url = url::Url::parse(&url)
        .and_then(|base| base.join(&file.url))
        .map_err(|e| format!("{url}: bad file URL {:?}: {e}", file.url))?;
    Ok(Release {
        license: license(&info),
        name: info.name,
        version: info.version,
        url: file_url.to_string(),
        sha256: file.digests.sha256.to_ascii_lowercase(),
    })
}

/// The licence: the SPDX expression, else a short `license` field, else the licence
/// classifiers, else the first line of a long `license` field (often the whole text).
fn license(info: &Info) -> Option<String> {
    let nonempty = |s: &Option<String>| s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
    if let Some(expression) = nonempty(&info.license_expression) {
        return Some(expression);
    }
    let field = nonempty(&info.license);
    if let Some(short) = field.as_ref().filter(|s| s.len() <= 100 && !s.contains('\n')) {
        return Some(short.clone());
    }
    let classifiers: Vec<&str> = info
        .classifiers
        .iter()
        .filter(|c| c.starts_with("License ::"))
        .filter_map(|c| c.rsplit(" :: ").next())
        .collect();
    if !classifiers.is_empty() {
        return Some(classifiers.join("; "));
    }
    field.and_then(|text| text.lines().next().map(|line| line.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(license: Option<&str>, expression: Option<&str>, classifiers: &[&str]) -> Info {
        Info {
            name: "x".into(),
            version: "1".into(),
            license: license.map(Into::into),
            license_expression: expression.map(Into::into),
            classifiers: classifiers.iter().map(|c| c.to_string()).collect(),
        }
    }

    #[test]
    fn licences_come_from_the_expression_field_or_classifiers() {
        assert_eq!(license(&info(Some("MIT"), Some("Apache-2.0"), &[])).as_deref(), Some("Apache-2.0"));
        assert_eq!(license(&info(Some("BSD"), None, &[])).as_deref(), Some("BSD"));
        let long = "Copyright (c) 2010\n\nPermission is hereby granted...";
        let classifiers = ["License :: OSI Approved :: MIT License", "Programming Language :: Python"];
        assert_eq!(license(&info(Some(long), None, &classifiers)).as_deref(), Some("MIT License"));
        assert_eq!(license(&info(Some(long), None, &[])).as_deref(), Some("Copyright (c) 2010"));
        assert_eq!(license(&info(Some(""), None, &[])), None);
    }
}
