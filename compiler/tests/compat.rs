//! Every supported format version keeps opening and verifying, and an older one is refused with a
//! version error: `format-spec/compat/v<N>/` holds a real generation written by a compiler of
//! that version (from `fixtures/go/inventory`).

use std::path::Path;

use kivgraph_format::{FORMAT_VERSION, FormatError, Generation, IndexDir};

#[test]
fn compat_generations_open_and_verify() {
    let compat = Path::new(env!("CARGO_MANIFEST_DIR")).join("../format-spec/compat");
    let mut seen = 0;
    for entry in std::fs::read_dir(&compat).unwrap() {
        let dir = entry.unwrap().path();
        let index = IndexDir::new(&dir);
        let version: u32 = dir.file_name().unwrap().to_str().unwrap()[1..]
            .parse()
            .unwrap();
        if version != FORMAT_VERSION {
            match Generation::open_current(&index) {
                Err(FormatError::Version { found, .. }) => assert_eq!(found, version),
                other => panic!(
                    "{}: not refused as version {version}: {other:?}",
                    dir.display()
                ),
            }
            continue;
        }
        let generation = Generation::open_current(&index)
            .unwrap()
            .unwrap_or_else(|| panic!("{}: nothing published", dir.display()));
        let report = kivgraph_compile::verify_generation(&generation.dir).unwrap();
        assert_eq!(report.rows.symbols, generation.graph().symbols.len() as u64);
        let g = generation.graph();
        let names: Vec<&str> = g
            .symbols
            .iter()
            .map(|s| g.strings.get(s.qualified_name.to_native()))
            .collect();
        assert!(names.contains(&"Store.Add"), "{}: {names:?}", dir.display());
        seen += 1;
    }
    assert!(
        seen >= 1,
        "no compatibility fixture under {}",
        compat.display()
    );
}
