//! get_file_outline reads each file's symbols through the compiler's index (`file_symbols.bin`);
//! an index that does not hold (a damaged id, a missing file) gives the same answer, by a scan.

use crate::common;
use crate::common::compile_go_fixtures;

use std::sync::Arc;

use kivgraph_format::{Generation, IndexDir};
use serde_json::json;

/// The answer, without the age of the snapshot (which moves between calls).
fn outline(g: Arc<Generation>, path: &str) -> serde_json::Value {
    let text = kivgraph::tools::call(
        "get_file_outline",
        &json!({"repository": "shapes", "path": path, "view": "full"}),
        Some(g),
    )
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_object_mut().unwrap().remove("snapshot_age_ms");
    v
}

#[test]
fn a_damaged_index_gives_the_answer_a_scan_gives() {
    let dir = tempfile::tempdir().unwrap();
    compile_go_fixtures(dir.path());
    let index = IndexDir::new(dir.path());
    let open = || Arc::new(Generation::open_current(&index).unwrap().unwrap());
    assert!(open().file_symbols().is_some());
    let paths = ["geo", "geo/geo.go", ""];
    let through_index: Vec<serde_json::Value> = paths.iter().map(|p| outline(open(), p)).collect();
    assert!(
        through_index[0].to_string().contains("NewCircle"),
        "{}",
        through_index[0]
    );

    // Swap two ids of the index: each now lists a symbol of another file.
    let file = index.generation_dir(1).join("file_symbols.bin");
    let mut bytes = std::fs::read(&file).unwrap();
    let n_files = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let ids = 16 + 4 * (n_files + 1);
    let (a, b) = (ids, bytes.len() - 4);
    let (x, y) = (bytes[a..a + 4].to_vec(), bytes[b..b + 4].to_vec());
    assert_ne!(x, y);
    bytes[a..a + 4].copy_from_slice(&y);
    bytes[b..b + 4].copy_from_slice(&x);
    std::fs::write(&file, &bytes).unwrap();
    let damaged: Vec<serde_json::Value> = paths.iter().map(|p| outline(open(), p)).collect();
    assert_eq!(damaged, through_index);

    // Without the index (a generation written before it existed), the same.
    std::fs::remove_file(&file).unwrap();
    let manifest = index.generation_dir(1).join("manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    m["files"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f["name"] != "file_symbols.bin");
    std::fs::write(&manifest, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    assert!(open().file_symbols().is_none());
    let scanned: Vec<serde_json::Value> = paths.iter().map(|p| outline(open(), p)).collect();
    assert_eq!(scanned, through_index);
}

/// find_symbol's answer, without the age of the snapshot.
fn substring(g: Arc<Generation>, needle: &str) -> serde_json::Value {
    let text = kivgraph::tools::call(
        "find_symbol",
        &json!({"name": needle, "mode": "substring", "view": "full", "limit": 200}),
        Some(g),
    )
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_object_mut().unwrap().remove("snapshot_age_ms");
    v
}

#[test]
fn substring_search_through_the_trigrams_gives_the_scans_answer() {
    let dir = tempfile::tempdir().unwrap();
    compile_go_fixtures(dir.path());
    let index = IndexDir::new(dir.path());
    let open = || Arc::new(Generation::open_current(&index).unwrap().unwrap());
    assert!(open().name_grams().is_some());
    let needles = ["rea", "Circ", "ircle", "a", "zzz", "Area", "Store.A"];
    let through: Vec<serde_json::Value> = needles.iter().map(|n| substring(open(), n)).collect();
    assert!(
        through[1].to_string().contains("NewCircle"),
        "{}",
        through[1]
    );

    // A damaged byte: the index no longer has its digest and is not used.
    let file = index.generation_dir(1).join("name_grams.bin");
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();
    assert!(open().name_grams().is_none());
    let damaged: Vec<serde_json::Value> = needles.iter().map(|n| substring(open(), n)).collect();
    assert_eq!(damaged, through);
}

/// The files at or under a path are found by binary search over the (repository, path) order;
/// for every repository and every prefix of every path (directories, files, a path that only
/// shares a prefix with others, one past the last), they are the files a scan finds.
#[test]
fn the_files_under_a_path_are_the_ones_a_scan_finds() {
    let dir = tempfile::tempdir().unwrap();
    common::compile_into(
        dir.path(),
        ["go", "ts"].iter().flat_map(|lang| {
            let root = common::workspace().join("fixtures").join(lang);
            std::fs::read_dir(&root)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_dir())
                .map(move |p| {
                    let name = format!("{lang}-{}", p.file_name().unwrap().to_str().unwrap());
                    format!("{name}={}", p.display())
                })
                .collect::<Vec<_>>()
        }),
    );
    let g = Generation::open_current(&IndexDir::new(dir.path()))
        .unwrap()
        .unwrap();
    let b = g.graph();
    let mut asked = 0;
    for repo in 0..b.repositories.len() as u32 + 1 {
        let mut paths: Vec<String> = vec![String::new(), "zzz".into(), "a".into()];
        for f in b.files.iter().filter(|f| f.repository.to_native() == repo) {
            let p = b.strings.get(f.path.to_native());
            for (i, c) in p.char_indices() {
                if c == '/' || c == '.' || c == '_' || c == '-' {
                    paths.push(p[..i].to_string());
                }
            }
            paths.push(p.to_string());
        }
        paths.sort();
        paths.dedup();
        for path in &paths {
            let scan: Vec<u32> = (0..b.files.len() as u32)
                .filter(|&f| {
                    let f = &b.files[f as usize];
                    let p = b.strings.get(f.path.to_native());
                    f.repository.to_native() == repo
                        && (path.is_empty()
                            || p == path
                            || p.strip_prefix(path.as_str())
                                .is_some_and(|r| r.starts_with('/')))
                })
                .collect();
            assert_eq!(
                kivgraph::query::files_under(&g, repo, path),
                scan,
                "{repo} {path:?}"
            );
            asked += 1;
        }
    }
    assert!(asked > 150, "{asked}");
}
