//! Stable keys: durable symbol identities that survive edits elsewhere in a file.
//!
//! `stable_key = BASE32_NOPAD(xxh3_128(canonical))`, 26 characters, where `canonical` is
//!
//! ```text
//! "kivgraph-stable-key" NUL "version=1"
//! then for each field, in this order: NUL <name> "=" <decimal byte length> ":" <value>
//! fields: language, repository, package, qualified_name, kind, discriminator
//! ```
//!
//! The length prefix makes the encoding injective whatever bytes a value holds. Source positions
//! never enter the key; the discriminator separates symbols that share everything else (Go `init`
//! functions, redeclarations in broken code) by their order of appearance.

use data_encoding::BASE32_NOPAD;
use xxhash_rust::xxh3::xxh3_128;

/// The fields that identify one symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolIdentity<'a> {
    pub language: &'a str,
    pub repository: &'a str,
    pub package: &'a str,
    pub qualified_name: &'a str,
    pub kind: &'a str,
    pub discriminator: &'a str,
}

impl SymbolIdentity<'_> {
    /// The canonical byte string the key hashes. It is also published as `canonical_identity`
    /// (lossily as text) so a key can be explained.
    pub fn canonical(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.qualified_name.len() + self.package.len());
        out.extend_from_slice(b"kivgraph-stable-key\0version=1");
        for (name, value) in [
            ("language", self.language),
            ("repository", self.repository),
            ("package", self.package),
            ("qualified_name", self.qualified_name),
            ("kind", self.kind),
            ("discriminator", self.discriminator),
        ] {
            out.push(0);
            out.extend_from_slice(name.as_bytes());
            out.push(b'=');
            out.extend_from_slice(value.len().to_string().as_bytes());
            out.push(b':');
            out.extend_from_slice(value.as_bytes());
        }
        out
    }

    /// The 26-character stable key.
    pub fn stable_key(&self) -> String {
        stable_key_of(&self.canonical())
    }
}

/// Hashes a canonical identity into a stable key.
pub fn stable_key_of(canonical: &[u8]) -> String {
    BASE32_NOPAD.encode(&xxh3_128(canonical).to_be_bytes())
}

/// Durable keys of the non-symbol entities, as documented in the specification.
pub fn repository_key(name: &str) -> String {
    format!("repository:{name}")
}

pub fn package_key(language: &str, repository: &str, name: &str) -> String {
    format!("package:{language}:{repository}:{name}")
}

pub fn file_key(repository: &str, path: &str) -> String {
    format!("file:{repository}:{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id<'a>(qn: &'a str, disc: &'a str) -> SymbolIdentity<'a> {
        SymbolIdentity {
            language: "go",
            repository: "shapes",
            package: "example.com/shapes/geo",
            qualified_name: qn,
            kind: "func",
            discriminator: disc,
        }
    }

    #[test]
    fn key_is_26_base32_chars_and_deterministic() {
        let k = id("NewCircle", "").stable_key();
        assert_eq!(k.len(), 26);
        assert!(
            k.bytes()
                .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b))
        );
        assert_eq!(k, id("NewCircle", "").stable_key());
    }

    #[test]
    fn length_prefix_keeps_field_boundaries() {
        // Moving bytes between adjacent fields must change the key.
        let a = SymbolIdentity {
            package: "ab",
            qualified_name: "c",
            ..id("", "")
        };
        let b = SymbolIdentity {
            package: "a",
            qualified_name: "bc",
            ..id("", "")
        };
        assert_ne!(a.stable_key(), b.stable_key());
        assert_ne!(id("init", "").stable_key(), id("init", "2").stable_key());
    }

    #[test]
    fn canonical_layout_is_documented_one() {
        let c = id("F", "").canonical();
        let text = String::from_utf8(c).unwrap();
        assert!(
            text.starts_with("kivgraph-stable-key\0version=1\0language=2:go\0repository=6:shapes")
        );
        assert!(text.ends_with("\0qualified_name=1:F\0kind=4:func\0discriminator=0:"));
    }
}
