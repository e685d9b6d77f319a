//! What the Python, TypeScript and Dart front ends share: how phase 1 binds names in a file
//! ([`extract`]), what phase 2 does alike with the files it resolves ([`resolve`]), and
//! repository-relative paths ([`join`]).

pub(crate) mod extract;
pub(crate) mod resolve;

/// Joins and normalises a `/`-separated, repository-relative path; `None` when it climbs above
/// the root.
pub fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = if rel.starts_with('/') {
        Vec::new()
    } else {
        dir.split('/').filter(|p| !p.is_empty()).collect()
    };
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}
