//! Recorded failures (unresolved references and unreadable scopes): by requested name, by
//! repository and file, and as completeness reports them.

use kivgraph_format::{Generation, NONE};

/// Recorded failures whose requested symbol is exactly `name`.
pub fn unresolved_named(g: &Generation, name: &str) -> Vec<u32> {
    let b = g.graph();
    let idx = &b.unresolved_by_name;
    let key = |i: usize| {
        b.strings.get(
            b.unresolved[idx[i].to_native() as usize]
                .requested_symbol
                .to_native(),
        )
    };
    let start = partition(idx.len(), |i| key(i) < name);
    let end = partition(idx.len(), |i| key(i) <= name);
    (start..end).map(|i| idx[i].to_native()).collect()
}

fn partition(len: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if pred(mid) { lo = mid + 1 } else { hi = mid }
    }
    lo
}

/// An unreadable scope or blind spot, as completeness reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub reason: String,
    pub repository: String,
    pub file_path: Option<String>,
    pub start_line: Option<u32>,
    pub requested_package: String,
    pub requested_symbol: Option<String>,
    pub detail: Option<String>,
}

pub fn failure(g: &Generation, i: u32) -> Failure {
    let b = g.graph();
    let u = &b.unresolved[i as usize];
    let st = &b.strings;
    let file = u.file.to_native();
    Failure {
        reason: st.get(u.reason.to_native()).to_string(),
        repository: st
            .get(
                b.repositories[u.repository.to_native() as usize]
                    .name
                    .to_native(),
            )
            .to_string(),
        file_path: (file != NONE)
            .then(|| st.get(b.files[file as usize].path.to_native()).to_string()),
        start_line: (file != NONE).then(|| u.line.to_native()),
        requested_package: st.get(u.requested_package.to_native()).to_string(),
        requested_symbol: st.opt(u.requested_symbol.to_native()).map(str::to_string),
        detail: st.opt(u.detail.to_native()).map(str::to_string),
    }
}

/// Unreadable scopes (records without a file), of one repository or of all.
pub fn invisible_scopes(g: &Generation, repo: Option<u32>) -> Vec<u32> {
    let b = g.graph();
    let repos: Vec<u32> = match repo {
        Some(r) => vec![r],
        None => (0..b.repositories.len() as u32).collect(),
    };
    // Records without a file come first in their repository's block (see unresolved_range).
    repos
        .into_iter()
        .flat_map(|r| unresolved_range(g, r, None))
        .collect()
}

/// The unresolved records of one repository and file (`None`: the file-less ones), found by
/// binary search: records are sorted by repository, then file with file-less records first.
pub fn unresolved_range(g: &Generation, repo: u32, file: Option<u32>) -> std::ops::Range<u32> {
    let b = g.graph();
    let key = |i: usize| {
        let u = &b.unresolved[i];
        let f = u.file.to_native();
        (
            u.repository.to_native(),
            if f == NONE { 0u64 } else { u64::from(f) + 1 },
        )
    };
    let want = (repo, file.map_or(0, |f| u64::from(f) + 1));
    let start = partition(b.unresolved.len(), |i| key(i) < want);
    let end = partition(b.unresolved.len(), |i| key(i) <= want);
    start as u32..end as u32
}

/// Reasons whose record pins the package it asked: such a failure cannot be a use of a symbol
/// of another package.
const PINNED_REASONS: &[&str] = &[
    "STDLIB_NOT_INDEXED",
    "MODULE_PROVIDER_NOT_FOUND",
    "CGO_NOT_INDEXED",
    "DECLARATION_NOT_FOUND",
];

/// Recorded failures that asked for the subject's name and could have been a use of it: not
/// pinned to another package, and recorded in a repository whose code can use the subject's
/// (its own, or one that depends on it, directly or through others); names in code the compiler
/// could not read count wherever they are.
pub fn blind_spots_naming(g: &Generation, subject: u32) -> Vec<u32> {
    let b = g.graph();
    let s = &b.symbols[subject as usize];
    let name = b.strings.get(s.name.to_native());
    // Strings are interned once, so reasons and packages compare by id.
    let package = b.packages[s.package.to_native() as usize].name.to_native();
    let pinned: Vec<u32> = PINNED_REASONS
        .iter()
        .filter_map(|r| b.strings.find(r))
        .collect();
    let unread = b.strings.find("NAME_IN_UNREAD_CODE");
    let home = s.repository.to_native();
    let mut reaching: Option<Vec<bool>> = None;
    unresolved_named(g, name)
        .into_iter()
        .filter(|&i| {
            let u = &b.unresolved[i as usize];
            let reason = u.reason.to_native();
            if pinned.contains(&reason) && u.requested_package.to_native() != package {
                return false;
            }
            // Code the compiler could not read may depend on anything (an optional
            // dependency used only there leaves no package edge): its names always count.
            if Some(reason) == unread {
                return true;
            }
            let from = u.repository.to_native();
            from == home
                || reaching
                    .get_or_insert_with(|| repositories_reaching(g, home))
                    .get(from as usize)
                    .copied()
                    .unwrap_or(true)
        })
        .collect()
}

/// Which repositories' code can use declarations of repository `home`: `home` and every
/// repository that depends on it through package edges, directly or through others.
pub fn repositories_reaching(g: &Generation, home: u32) -> Vec<bool> {
    let users = g.repository_users();
    let mut reach = vec![false; users.len()];
    let mut queue = vec![home];
    if let Some(r) = reach.get_mut(home as usize) {
        *r = true;
    }
    while let Some(r) = queue.pop() {
        for &u in users.get(r as usize).map_or(&[][..], Vec::as_slice) {
            if !reach[u as usize] {
                reach[u as usize] = true;
                queue.push(u);
            }
        }
    }
    reach
}

/// Recorded failures the subject itself made (its own unfollowed references).
pub fn failures_made_by(g: &Generation, subject: u32) -> Vec<u32> {
    let b = g.graph();
    let s = &b.symbols[subject as usize];
    // A failure is recorded in the file of the reference, which is the file of the symbol that
    // made it.
    unresolved_range(g, s.repository.to_native(), Some(s.file.to_native()))
        .filter(|&i| b.unresolved[i as usize].source.to_native() == subject)
        .collect()
}

/// The package of the file a failure was recorded in, when it has a file in a package.
pub fn failure_package(g: &Generation, i: u32) -> Option<String> {
    let b = g.graph();
    let file = b.unresolved[i as usize].file.to_native();
    (file != NONE)
        .then(|| b.files[file as usize].package.to_native())
        .filter(|&p| p != NONE)
        .map(|p| {
            b.strings
                .get(b.packages[p as usize].name.to_native())
                .to_string()
        })
}

/// The names under which a scope names `packages`, in its own import path or in its imports:
/// each package's name and, for a vendored Go package (`vendor/golang.org/x/net/...`), the path
/// it is imported as (`golang.org/x/net/...`).
fn package_names<'a>(packages: &[&'a str]) -> std::collections::HashSet<&'a str> {
    let mut named = std::collections::HashSet::new();
    for p in packages {
        named.insert(*p);
        if let Some(at) = p.rfind("vendor/")
            && (at == 0 || p.as_bytes()[at - 1] == b'/')
        {
            named.insert(&p[at + "vendor/".len()..]);
        }
    }
    named
}

/// The invisible scopes whose reach `keep` accepts. A scope whose reach the generation does not
/// record (its files could not be read for it, or the generation predates the record) may hold
/// anything: it is kept when it is in `unknown_repo` (every repository when `None`).
fn scopes_where(
    g: &Generation,
    unknown_repo: Option<u32>,
    keep: impl Fn(u32, &[String], &[String]) -> bool,
) -> Vec<u32> {
    let b = g.graph();
    let Some(reach) = g.scope_reach_table() else {
        return invisible_scopes(g, unknown_repo);
    };
    invisible_scopes(g, None)
        .into_iter()
        .filter(|&i| match reach.of(i) {
            Some((imports, declares)) => keep(i, imports, declares),
            // Unknown: it may hold anything.
            None => {
                unknown_repo.is_none_or(|r| b.unresolved[i as usize].repository.to_native() == r)
            }
        })
        .collect()
}

/// The invisible scopes that could hold a use of a symbol of one of `packages` (package names):
/// scopes, of any repository, whose files import one of them or that are one of them (SPEC
/// 7.10). `unknown_repo` is the repository whose unread scopes count (see [`scopes_where`]).
pub fn scopes_using(g: &Generation, packages: &[&str], unknown_repo: Option<u32>) -> Vec<u32> {
    scopes_naming(g, packages, unknown_repo, true)
}

/// The invisible scopes that are one of `packages`, or, with `imports`, import one of them.
fn scopes_naming(
    g: &Generation,
    packages: &[&str],
    unknown_repo: Option<u32>,
    imports: bool,
) -> Vec<u32> {
    let b = g.graph();
    let named = package_names(packages);
    scopes_where(g, unknown_repo, |i, imported, _| {
        let own = b
            .strings
            .get(b.unresolved[i as usize].requested_package.to_native());
        named.contains(own) || (imports && imported.iter().any(|p| named.contains(p.as_str())))
    })
}

/// The invisible scopes, of `repo` or of all, whose declared names (sorted) `matches` accepts.
pub fn scopes_declaring(
    g: &Generation,
    repo: Option<u32>,
    matches: impl Fn(&[String]) -> bool,
) -> Vec<u32> {
    let b = g.graph();
    scopes_where(g, repo, |i, _, declares| {
        repo.is_none_or(|x| b.unresolved[i as usize].repository.to_native() == x)
            && matches(declares)
    })
}

/// The repository-relative directory of a scope, as its detail names it (`… in <dir>`; `.` is
/// the root).
pub fn scope_directory(g: &Generation, i: u32) -> Option<String> {
    let b = g.graph();
    let detail = b.strings.opt(b.unresolved[i as usize].detail.to_native())?;
    let (_, dir) = detail.rsplit_once(" in ")?;
    Some(dir.to_string())
}

/// The invisible scopes that could hold a use of `subject` (see [`scopes_using`]); unread scopes
/// count in the subject's repository. A Go declaration that is not exported can be used only
/// from its own package, so a scope that merely imports that package cannot use it.
pub fn scopes_using_symbol(g: &Generation, subject: u32) -> Vec<u32> {
    let b = g.graph();
    let s = &b.symbols[subject as usize];
    let package = b
        .strings
        .get(b.packages[s.package.to_native() as usize].name.to_native());
    let repo = s.repository.to_native();
    let own_package_only = !s.exported && s.language == kivgraph_format::Language::Go.code();
    scopes_naming(g, &[package], Some(repo), !own_package_only)
}
