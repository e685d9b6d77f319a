//! Records a digest of the compiler's own sources (and the workspace's lock file, which pins the
//! grammars) as `KIVGRAPH_FRONTEND_DIGEST`: the extraction cache keys its entries with it, so a
//! build whose front ends differ in any byte never reads another build's extractions.

use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

fn main() {
    let inputs = ["src", "../format-spec/src", "../Cargo.lock"];
    let mut files = Vec::new();
    for input in inputs {
        println!("cargo:rerun-if-changed={input}");
        collect(Path::new(input), &mut files);
    }
    files.sort();
    let mut h = Xxh3::new();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        h.update(f.to_string_lossy().as_bytes());
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    println!(
        "cargo:rustc-env=KIVGRAPH_FRONTEND_DIGEST={:032x}",
        h.digest128()
    );
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_path_buf());
    } else if let Ok(dir) = std::fs::read_dir(path) {
        for entry in dir.flatten() {
            collect(&entry.path(), out);
        }
    }
}
