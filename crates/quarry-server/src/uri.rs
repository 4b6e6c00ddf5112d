//! `file:` URIs and paths.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::Uri;

/// The path a `file:` URI names; `None` for another scheme or a bad URI.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    url::Url::parse(uri.as_str()).ok()?.to_file_path().ok()
}

/// The `file:` URI of an absolute path; `None` for a relative path.
pub fn from_path(path: &Path) -> Option<Uri> {
    let url = url::Url::from_file_path(path).ok()?;
    Uri::from_str(url.as_str()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip_through_uris_with_escapes() {
        let path = PathBuf::from("/tmp/a dir/é.py");
        let uri = from_path(&path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20dir/%C3%A9.py");
        assert_eq!(to_path(&uri).unwrap(), path);
        assert_eq!(to_path(&Uri::from_str("untitled:Untitled-1").unwrap()), None);
        assert_eq!(from_path(Path::new("relative.py")), None);
    }
}
