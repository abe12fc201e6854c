//! The digests an install records and checks: SHA-256 of each file and of a skill's set of
//! files, and npm's Subresource Integrity strings (`sha512-<base64>`).

use std::collections::BTreeMap;

use sha2::{Digest, Sha256, Sha512};

use super::tree::RelPath;

/// Each file of a skill (relative to its place) and the SHA-256 of its bytes, in hex.
pub type FileDigests = BTreeMap<RelPath, String>;

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `s` looks like a SHA-256 in hex, as we write them (64 lower-case digits).
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The digest of a set of files: the SHA-256 of the lines `sha256sum` prints for them
/// (`<hex>  <path>\n`), in path order. `cd <skill folder> && sha256sum $(find . -type f | sort)`
/// does not give it byte for byte (its paths start with `./`), but the lines are the same idea:
/// a change to any file, name or the set changes it.
pub fn set_digest(files: &FileDigests) -> String {
    let mut h = Sha256::new();
    for (path, digest) in files {
        h.update(digest.as_bytes());
        h.update(b"  ");
        h.update(path.as_str().as_bytes());
        h.update(b"\n");
    }
    hex(&h.finalize())
}

/// Standard base64 with padding (RFC 4648), as Subresource Integrity and HTTP Basic use.
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The Subresource Integrity string of `bytes` as npm writes it: `sha512-<base64>`.
pub fn sri_sha512(bytes: &[u8]) -> String {
    format!("sha512-{}", base64(&Sha512::digest(bytes)))
}

/// Why a tarball does not match its integrity string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntegrityError {
    #[error("the registry gives no sha512 integrity for it (only {given:?}), so what is downloaded cannot be checked")]
    NoSha512 { given: String },
    #[error("integrity check failed: expected {expected}, got {actual}")]
    Mismatch { expected: String, actual: String },
}

/// Checks `bytes` against an SRI string (several space-separated hashes allowed; its sha512
/// ones are the ones compared; any one matching is enough, as SRI says). Returns the sha512
/// entry that matched.
pub fn check_integrity(sri: &str, bytes: &[u8]) -> Result<String, IntegrityError> {
    let wanted: Vec<&str> = sri.split_whitespace().filter(|h| h.starts_with("sha512-")).collect();
    if wanted.is_empty() {
        return Err(IntegrityError::NoSha512 { given: sri.to_owned() });
    }
    let actual = sri_sha512(bytes);
    // An SRI hash may carry `?options` after the digest.
    if wanted.iter().any(|w| w.split('?').next() == Some(actual.as_str())) {
        Ok(actual)
    } else {
        Err(IntegrityError::Mismatch { expected: wanted.join(" "), actual })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn integrity_is_npms_sha512_and_a_changed_byte_fails_it() {
        // `printf abc | openssl dgst -sha512 -binary | base64`
        let abc = "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==";
        assert_eq!(sri_sha512(b"abc"), abc);
        assert_eq!(check_integrity(&format!("sha1-x {abc}"), b"abc").unwrap(), abc);
        assert!(matches!(check_integrity(abc, b"abd"), Err(IntegrityError::Mismatch { .. })));
        assert!(matches!(
            check_integrity("sha1-qZk+NkcGgWq6PiVxeFDCbJzQ2J0=", b"abc"),
            Err(IntegrityError::NoSha512 { .. })
        ));
    }

    #[test]
    fn the_set_digest_changes_with_any_name_or_content() {
        let one = |p: &str, d: &str| FileDigests::from([(RelPath::parse(p).unwrap(), d.to_owned())]);
        let a = set_digest(&one("SKILL.md", &sha256_hex(b"x")));
        assert_ne!(a, set_digest(&one("SKILL.MD", &sha256_hex(b"x"))));
        assert_ne!(a, set_digest(&one("SKILL.md", &sha256_hex(b"y"))));
        assert!(is_sha256_hex(&a));
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
