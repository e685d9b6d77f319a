//! The term index the compiler builds into `graph.blob` (SPEC section 7.7): deterministic,
//! exactly the terms the shared tokenizer gives each symbol, bounds-checked on open, and checked
//! in full by `verify`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use kivgraph_format::layout::{CURRENT, GENERATIONS, MANIFEST};
use kivgraph_format::manifest::digest_hex;
use kivgraph_format::terms::{self, PathClass};
use kivgraph_format::{GRAPH_BLOB, Generation, SymbolKind};

const BIN: &str = env!("CARGO_BIN_EXE_kivgraph-compile");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/go")
        .join(name)
}

/// Compiles the two fixtures, in the given argument order, and returns the generation directory.
fn compile(index: &Path, order: &[&str]) -> PathBuf {
    let mut cmd = Command::new(BIN);
    cmd.env_remove("KIVGRAPH_FAULT").arg("--out").arg(index);
    for name in order {
        cmd.arg(format!("{name}={}", fixture(name).display()));
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "compile failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = fs::read_to_string(index.join(CURRENT)).unwrap();
    index.join(GENERATIONS).join(id.trim())
}

/// Where `slice` starts inside `base`.
fn offset_in<T>(base: &[u8], slice: &[T]) -> usize {
    slice.as_ptr() as usize - base.as_ptr() as usize
}

/// Copies a generation, lets `edit` change bytes of its `graph.blob` (offsets as in
/// [`Generation::blob_bytes`]), then fixes the blob checksum and the manifest digest, so only the
/// edited content is wrong.
fn tampered_copy(gen_dir: &Path, dst: &Path, edit: impl FnOnce(&mut [u8], &Generation)) {
    fs::create_dir_all(dst).unwrap();
    for e in fs::read_dir(gen_dir).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), dst.join(e.file_name())).unwrap();
    }
    let generation = Generation::open_dir(gen_dir).unwrap();
    let mut blob = fs::read(dst.join(GRAPH_BLOB)).unwrap();
    edit(&mut blob, &generation);
    kivgraph_format::blob::reseal(&mut blob).unwrap();
    fs::write(dst.join(GRAPH_BLOB), &blob).unwrap();
    let manifest = fs::read_to_string(dst.join(MANIFEST)).unwrap();
    let old = digest_hex(&fs::read(gen_dir.join(GRAPH_BLOB)).unwrap());
    assert!(manifest.contains(&old));
    fs::write(
        dst.join(MANIFEST),
        manifest.replace(&old, &digest_hex(&blob)),
    )
    .unwrap();
}

#[test]
fn term_index_is_deterministic_and_holds_every_symbols_terms() {
    let tmp = tempfile::tempdir().unwrap();
    let a = compile(&tmp.path().join("a"), &["shapes", "inventory"]);
    // Repository order on the command line changes nothing.
    let b = compile(&tmp.path().join("b"), &["inventory", "shapes"]);
    assert_eq!(
        fs::read(a.join(GRAPH_BLOB)).unwrap(),
        fs::read(b.join(GRAPH_BLOB)).unwrap(),
        "two compiles of the same inputs wrote different blobs"
    );
    kivgraph_compile::verify_generation(&a).unwrap();

    let generation = Generation::open_dir(&a).unwrap();
    let g = generation.graph();
    let index = &g.terms;
    assert!(index.len() > 50, "only {} terms", index.len());
    let keys: Vec<&str> = (0..index.len()).map(|t| index.key(t)).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "keys are not sorted");
    assert!(
        keys.iter().all(|k| {
            let n = k.chars().count();
            (2..=terms::FOLD_RUNES).contains(&n) && k.to_lowercase() == *k
        }),
        "{keys:?}"
    );

    // Every posting list is exactly the set of symbols whose own terms include the key.
    let st = &g.strings;
    let mut expected: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); index.len()];
    for (id, s) in g.symbols.iter().enumerate() {
        let path = st.get(g.files[s.file.to_native() as usize].path.to_native());
        let own = terms::symbol_terms(
            st.get(s.name.to_native()),
            st.get(s.qualified_name.to_native()),
            SymbolKind::from_code(s.kind).unwrap().as_str(),
            path,
        );
        assert!(!own.is_empty());
        for t in own {
            let at = index
                .find(&t)
                .unwrap_or_else(|| panic!("term {t:?} of symbol {id} is not a key"));
            expected[at].insert(id as u32);
        }
        assert_eq!(index.path_class(id as u32), terms::path_class(path));
    }
    for (t, want) in expected.iter().enumerate() {
        let got: BTreeSet<u32> = index.posting(t).unwrap().iter().collect();
        assert_eq!(&got, want, "postings of {:?}", index.key(t));
        assert_eq!(index.doc_freq(t) as usize, want.len());
    }

    // The fixtures' own vocabulary is there, and so are the kinds and paths.
    let circle = index.find("circl").unwrap();
    let circle_area = (0..g.symbols.len() as u32)
        .find(|&id| st.get(g.symbols[id as usize].qualified_name.to_native()) == "Circle.Area")
        .unwrap();
    assert!(index.posting(circle).unwrap().contains(circle_area));
    for key in ["metho", "func", "geo", "store", "go"] {
        assert!(index.find(key).is_some(), "{key}");
    }
    let classes: BTreeSet<PathClass> = (0..g.symbols.len() as u32)
        .map(|id| index.path_class(id))
        .collect();
    assert!(
        classes.contains(&PathClass::Test),
        "geo_test.go is a test file"
    );
    assert!(
        classes.contains(&PathClass::Source),
        "cmd/ is a source tree"
    );
}

#[test]
fn verify_refuses_a_term_index_that_disagrees_with_the_symbols() {
    let tmp = tempfile::tempdir().unwrap();
    let gen_dir = compile(&tmp.path().join("index"), &["shapes", "inventory"]);

    // A frequency that is in bounds but wrong: open accepts it, verify does not.
    let freq = tmp.path().join("freq");
    tampered_copy(&gen_dir, &freq, |blob, generation| {
        let df = &generation.archived().unwrap().terms.doc_freq;
        let at = offset_in(generation.blob_bytes(), df.as_slice());
        blob[at] ^= 1;
    });
    Generation::open_dir(&freq).expect("a wrong frequency is still in bounds");
    let err = kivgraph_compile::verify_generation(&freq)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("graph.blob") && err.contains("term index's doc_freq"),
        "{err}"
    );

    // A changed ranking prior (a symbol's callers): the full check rebuilds every prior from
    // the symbols and their incoming edges.
    let prior = tmp.path().join("prior");
    tampered_copy(&gen_dir, &prior, |blob, generation| {
        let p = &generation.archived().unwrap().terms.prior;
        let at = offset_in(generation.blob_bytes(), p.as_slice());
        blob[at] ^= 1;
    });
    let err = kivgraph_compile::verify_generation(&prior)
        .unwrap_err()
        .to_string();
    assert!(err.contains("term index's prior"), "{err}");

    // A changed bit inside a bitmap: a symbol gains or loses a term.
    let posting = tmp.path().join("posting");
    tampered_copy(&gen_dir, &posting, |blob, generation| {
        let terms = generation.graph().terms;
        let t = terms.find("circl").unwrap();
        let bytes = terms.posting_bytes(t);
        let at = offset_in(generation.blob_bytes(), bytes) + bytes.len() - 1;
        blob[at] ^= 0x40;
    });
    let err = kivgraph_compile::verify_generation(&posting)
        .unwrap_err()
        .to_string();
    assert!(err.contains("term index's postings"), "{err}");

    // A path class that is not a code, in a blob whose sums were made to hold (what only a
    // forged generation carries): the full check refuses it.
    let class = tmp.path().join("class");
    tampered_copy(&gen_dir, &class, |blob, generation| {
        let classes = &generation.archived().unwrap().terms.path_class;
        blob[offset_in(generation.blob_bytes(), classes.as_slice())] = 9;
    });
    let err = kivgraph_compile::verify_generation(&class)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown path class"), "{err}");

    // A posting end past the postings: refused by the full check, and a reader that follows it
    // reads no posting and notes the damage, before reading any byte outside the postings.
    let ends = tmp.path().join("ends");
    tampered_copy(&gen_dir, &ends, |blob, generation| {
        let pe = &generation.archived().unwrap().terms.posting_ends;
        let at = offset_in(generation.blob_bytes(), pe.as_slice()) + 4 * (pe.len() - 1);
        blob[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    });
    let err = kivgraph_compile::verify_generation(&ends)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("graph.blob") && err.contains("term posting offsets"),
        "{err}"
    );
    let forged = Generation::open_dir(&ends).expect("opening reads no posting");
    let terms = forged.graph().terms;
    kivgraph_format::take_damage();
    assert!(terms.posting_bytes(terms.len() - 1).is_empty());
    let damage = kivgraph_format::take_damage().expect("the damage is noted");
    assert_eq!(damage.region, "term postings", "{damage}");
}

/// The names' trigram index (SPEC 7.9): every search through it is the scan's answer, and an
/// index that holds together but is not the one the names give is refused by `verify`.
#[test]
fn name_grams_give_the_scans_answer_and_verify_rebuilds_them() {
    use kivgraph_format::name_grams::{NAME_GRAMS, NameGrams};
    let tmp = tempfile::tempdir().unwrap();
    let dir = compile(&tmp.path().join("a"), &["shapes", "inventory"]);
    let generation = Generation::open_dir(&dir).unwrap();
    let idx = generation
        .name_grams()
        .expect("the compiler writes the index");
    let names: Vec<String> = (0..idx.len() as u32)
        .map(|i| String::from_utf8(idx.name(i).unwrap().to_vec()).unwrap())
        .collect();
    assert!(names.len() > 20 && names.windows(2).all(|w| w[0] < w[1]));
    // Every substring of every name up to five bytes long, and a few that no name holds.
    let mut needles: BTreeSet<String> = ["zzz", "qq", "Xy", "é"].map(String::from).into();
    for n in &names {
        for len in 1..=5 {
            for w in n.as_bytes().windows(len) {
                if let Ok(s) = std::str::from_utf8(w) {
                    needles.insert(s.to_string());
                }
            }
        }
    }
    for needle in &needles {
        let scan: Vec<u32> = (0..names.len() as u32)
            .filter(|&i| names[i as usize].contains(needle.as_str()))
            .collect();
        assert_eq!(idx.containing(needle).unwrap(), scan, "needle {needle:?}");
    }
    drop(generation);

    // A name's posting range pointed elsewhere, with the digest the manifest records fixed: the
    // file still parses, and only verify's rebuild can tell.
    let bad = tmp.path().join("bad");
    fs::create_dir_all(&bad).unwrap();
    for e in fs::read_dir(&dir).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), bad.join(e.file_name())).unwrap();
    }
    let original = fs::read(dir.join(NAME_GRAMS)).unwrap();
    let mut bytes = original.clone();
    bytes[32..36].copy_from_slice(&1u32.to_le_bytes());
    bytes[36..40].copy_from_slice(&1u32.to_le_bytes());
    assert_ne!(bytes, original);
    NameGrams::parse(&bytes).unwrap();
    fs::write(bad.join(NAME_GRAMS), &bytes).unwrap();
    let manifest = fs::read_to_string(bad.join(MANIFEST)).unwrap();
    fs::write(
        bad.join(MANIFEST),
        manifest.replace(&digest_hex(&original), &digest_hex(&bytes)),
    )
    .unwrap();
    let err = kivgraph_compile::verify_generation(&bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains(NAME_GRAMS) && err.contains("differs"), "{err}");
}
