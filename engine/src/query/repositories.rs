//! Repositories with the commit they were indexed at and where their HEAD is now.

use std::path::Path;

use kivgraph_format::{Generation, Language};

/// One repository with its indexed and current position.
#[derive(Debug, Clone, PartialEq)]
pub struct RepositoryRow {
    pub name: String,
    pub path: String,
    pub languages: Vec<&'static str>,
    pub indexed_commit: Option<String>,
    pub indexed_branch: Option<String>,
    pub indexed_dirty: bool,
    pub current_commit: Option<String>,
    pub current_branch: Option<String>,
    pub moved: bool,
    /// `None` when HEAD could be read and nothing needs saying.
    pub moved_detail: Option<String>,
    /// HEAD could not be read: neither moved nor fresh.
    pub head_unreadable: bool,
    pub derived: bool,
}

fn short(c: &str) -> &str {
    &c[..c.len().min(7)]
}

/// Every repository, in repository-key order, with HEAD read now.
pub fn repositories(g: &Generation) -> Vec<RepositoryRow> {
    let b = g.graph();
    let st = &b.strings;
    b.repositories
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let path = crate::checkouts::root_of(g, i as u32).unwrap_or_default();
            let indexed_commit = st.opt(r.commit.to_native()).map(str::to_string);
            let indexed_branch = st.opt(r.branch.to_native()).map(str::to_string);
            let mut row = RepositoryRow {
                name: st.get(r.name.to_native()).to_string(),
                languages: b.languages(r).iter().filter_map(|&c| Language::from_code(c)).map(|l| l.as_str()).collect(),
                indexed_dirty: r.dirty == 1,
                indexed_commit,
                indexed_branch,
                current_commit: None,
                current_branch: None,
                moved: false,
                moved_detail: None,
                head_unreadable: false,
                derived: r.derived,
                path,
            };
            row.languages.sort_unstable();
            if row.derived {
                row.moved_detail = Some("derived from the toolchain, not a registered repository: it has no commit to compare".into());
                return row;
            }
            match kivgraph_format::git::read_head(Path::new(&row.path)) {
                Ok(Some(head)) => {
                    row.current_commit = Some(head.commit);
                    row.current_branch = head.branch;
                }
                Ok(None) => {
                    row.head_unreadable = true;
                    row.moved_detail = Some("the working tree could not be compared with the graph: it is not a git checkout".into());
                }
                Err(e) => {
                    row.head_unreadable = true;
                    row.moved_detail = Some(format!("the working tree could not be compared with the graph: {e}"));
                }
            }
            match (&row.indexed_commit, &row.current_commit) {
                (None, _) if !row.head_unreadable => {
                    row.moved_detail = Some("the graph does not record the commit this repository was indexed at, so it cannot be compared with the working tree".into());
                }
                (Some(i), Some(c)) if i != c => {
                    row.moved = true;
                    let on = |b: &Option<String>| b.clone().unwrap_or_else(|| "a detached HEAD".into());
                    row.moved_detail = Some(format!(
                        "indexed at commit {} on {}, the tree is now at {} on {}",
                        short(i),
                        on(&row.indexed_branch),
                        short(c),
                        on(&row.current_branch)
                    ));
                }
                _ => {}
            }
            row
        })
        .collect()
}
