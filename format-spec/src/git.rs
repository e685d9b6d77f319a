//! Reads a repository's HEAD straight from `.git`, without running git: the engine does this on
//! every freshness call, so it must be cheap and must never execute anything.

use std::fs;
use std::path::{Path, PathBuf};

/// Where HEAD points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub commit: String,
    /// `None` on a detached HEAD.
    pub branch: Option<String>,
}

/// Reads HEAD of the checkout at `root`. `Ok(None)` means `root` is not a git checkout.
pub fn read_head(root: &Path) -> Result<Option<Head>, String> {
    let Some(git_dir) = git_dir(root)? else {
        return Ok(None);
    };
    let head = fs::read_to_string(git_dir.join("HEAD")).map_err(|e| format!("HEAD: {e}"))?;
    let head = head.trim();
    if let Some(reference) = head.strip_prefix("ref: ") {
        let branch = reference
            .strip_prefix("refs/heads/")
            .unwrap_or(reference)
            .to_string();
        let commit = resolve_ref(&git_dir, reference)?
            .ok_or_else(|| format!("branch {branch} has no commit yet"))?;
        Ok(Some(Head {
            commit,
            branch: Some(branch),
        }))
    } else if is_hex_oid(head) {
        Ok(Some(Head {
            commit: head.to_string(),
            branch: None,
        }))
    } else {
        Err(format!("HEAD holds neither a ref nor a commit: {head:?}"))
    }
}

/// `.git` as a directory, or the directory a `.git` file (worktree, submodule) points to, in
/// `root` or its nearest ancestor that has one.
fn git_dir(root: &Path) -> Result<Option<PathBuf>, String> {
    // A repository may be registered at a subdirectory of a checkout: look upwards, as git does.
    for dir in root.ancestors() {
        let dot = dir.join(".git");
        let Ok(meta) = fs::metadata(&dot) else {
            continue;
        };
        if meta.is_dir() {
            return Ok(Some(dot));
        }
        let text = fs::read_to_string(&dot).map_err(|e| format!(".git: {e}"))?;
        let target = text
            .trim()
            .strip_prefix("gitdir: ")
            .ok_or_else(|| ".git file does not name a gitdir".to_string())?;
        return Ok(Some(dir.join(target)));
    }
    Ok(None)
}

fn resolve_ref(git_dir: &Path, reference: &str) -> Result<Option<String>, String> {
    if reference.contains("..") {
        return Err(format!("refusing ref {reference:?}"));
    }
    // A linked worktree keeps branch refs in the common directory.
    let mut dirs = vec![git_dir.to_path_buf()];
    if let Ok(common) = fs::read_to_string(git_dir.join("commondir")) {
        dirs.push(git_dir.join(common.trim()));
    }
    for dir in &dirs {
        if let Ok(text) = fs::read_to_string(dir.join(reference)) {
            let oid = text.trim();
            if is_hex_oid(oid) {
                return Ok(Some(oid.to_string()));
            }
        }
        if let Ok(packed) = fs::read_to_string(dir.join("packed-refs")) {
            for line in packed.lines() {
                if let Some((oid, name)) = line.split_once(' ')
                    && name == reference
                    && is_hex_oid(oid)
                {
                    return Ok(Some(oid.to_string()));
                }
            }
        }
    }
    Ok(None)
}

fn is_hex_oid(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_branch_loose_and_packed_and_detached() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        fs::create_dir_all(git.join("refs/heads")).unwrap();
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::write(git.join("refs/heads/main"), format!("{a}\n")).unwrap();
        let h = read_head(dir.path()).unwrap().unwrap();
        assert_eq!(
            (h.commit.as_str(), h.branch.as_deref()),
            (a.as_str(), Some("main"))
        );

        fs::write(git.join("HEAD"), "ref: refs/heads/dev\n").unwrap();
        fs::write(
            git.join("packed-refs"),
            format!("# pack-refs\n{b} refs/heads/dev\n"),
        )
        .unwrap();
        assert_eq!(read_head(dir.path()).unwrap().unwrap().commit, b);

        fs::write(git.join("HEAD"), format!("{a}\n")).unwrap();
        assert_eq!(read_head(dir.path()).unwrap().unwrap().branch, None);

        fs::write(git.join("HEAD"), "garbage").unwrap();
        assert!(read_head(dir.path()).is_err());
        // A subdirectory reads the checkout that contains it; a directory outside any has none.
        fs::write(git.join("HEAD"), format!("{a}\n")).unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        assert_eq!(
            read_head(&dir.path().join("sub")).unwrap().unwrap().commit,
            a
        );
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(read_head(outside.path()).unwrap(), None);
    }
}
