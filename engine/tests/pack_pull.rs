//! A generation packed into one file (`kivgraph-compile pack`) and installed elsewhere
//! (`kivgraph pull`, from a file or over HTTP from a server on 127.0.0.1): the same tables and
//! blobs, served with the sources a `--source` maps; a damaged or hostile archive is refused and
//! the index is left as it was.

use crate::common::{compile_into, compiler, generation_dir_files, workspace};

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kivgraph(index: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kivgraph"))
        .arg("--index")
        .arg(index)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The files of the published generation of `index` but its manifest.
fn generation_files(index: &Path) -> Vec<(String, Vec<u8>)> {
    let current = std::fs::read_to_string(index.join("CURRENT")).unwrap();
    generation_dir_files(&index.join("generations").join(current.trim()))
}

/// Packs the published generation of `index` into `file`.
fn pack(index: &Path, file: &Path) -> String {
    let o = Command::new(compiler())
        .arg("pack")
        .arg(index)
        .arg("-o")
        .arg(file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    text(&o)
}

struct Packed {
    _dir: tempfile::TempDir,
    index: PathBuf,
    file: PathBuf,
}

fn packed() -> Packed {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    compile_into(
        &index,
        [format!(
            "shapes={}",
            workspace().join("fixtures/go/shapes").display()
        )],
    );
    let file = dir.path().join("shapes.kgpack");
    let said = pack(&index, &file);
    assert!(said.starts_with("packed generation 000001 into "), "{said}");
    Packed {
        _dir: dir,
        index,
        file,
    }
}

#[test]
fn a_packed_generation_installs_elsewhere_with_the_same_bytes() {
    let p = packed();
    // Packing is deterministic.
    let again = p.file.with_file_name("again.kgpack");
    pack(&p.index, &again);
    assert_eq!(
        std::fs::read(&p.file).unwrap(),
        std::fs::read(&again).unwrap()
    );
    let sum = std::fs::read_to_string(p.file.with_file_name("shapes.kgpack.sha256")).unwrap();
    assert!(sum.ends_with("  shapes.kgpack\n"), "{sum}");

    let other = tempfile::tempdir().unwrap();
    let index = other.path().join("index");
    // An index that already has a generation: the pulled one is the next.
    compile_into(
        &index,
        [format!(
            "inventory={}",
            workspace().join("fixtures/go/inventory").display()
        )],
    );
    let o = kivgraph(&index, &["pull", p.file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).starts_with("installed generation 000002 (packed as 000001)")
            && text(&o).contains("sha256 checked"),
        "{}",
        text(&o)
    );
    assert_eq!(generation_files(&index), generation_files(&p.index));

    // Served with the sources where --source says they are.
    let checkout = workspace().join("fixtures/go/shapes");
    let args = r#"{"symbols":[{"repository":"shapes","qualified_name":"NewCircle"}]}"#;
    let source = format!("--source=shapes={}", checkout.display());
    let o = kivgraph(&index, &[&source, "query", "get_source", args]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("@ shapes ") && text(&o).contains("func NewCircle"),
        "{}",
        text(&o)
    );
}

/// Serves `files` (name → bytes) over HTTP/1.1 on 127.0.0.1 for `requests` requests; a name it
/// does not have is a 404.
fn serve(files: Vec<(String, Vec<u8>)>, requests: usize) -> (String, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let mut stream = stream.unwrap();
            let mut r = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
            loop {
                let mut h = String::new();
                r.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
            }
            match files.iter().find(|(n, _)| format!("/{n}") == path) {
                Some((_, body)) => {
                    write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    )
                    .unwrap();
                    stream.write_all(body).unwrap();
                }
                None => {
                    write!(
                        stream,
                        "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )
                    .unwrap();
                }
            }
        }
    });
    (base, handle)
}

#[test]
fn a_generation_is_pulled_over_http_and_its_digest_checked() {
    let p = packed();
    let bytes = std::fs::read(&p.file).unwrap();
    let sum = std::fs::read(p.file.with_file_name("shapes.kgpack.sha256")).unwrap();
    let (base, server) = serve(
        vec![
            ("g.kgpack".into(), bytes.clone()),
            ("g.kgpack.sha256".into(), sum),
        ],
        2,
    );
    let other = tempfile::tempdir().unwrap();
    let index = other.path().join("index");
    let o = kivgraph(&index, &["pull", &format!("{base}/g.kgpack")]);
    server.join().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("sha256 checked"), "{}", text(&o));
    assert_eq!(generation_files(&index), generation_files(&p.index));

    // A digest that does not match: nothing is installed.
    let mut bad = bytes.clone();
    let at = bad.len() / 2;
    bad[at] ^= 1;
    let (base, server) = serve(vec![("g.kgpack".into(), bad)], 1);
    let o = kivgraph(
        &index,
        &[
            "pull",
            &format!("{base}/g.kgpack"),
            "--sha256",
            &"0".repeat(64),
        ],
    );
    server.join().unwrap();
    assert!(!o.status.success());
    assert!(text(&o).contains("DIGEST_MISMATCH"), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(index.join("CURRENT")).unwrap(),
        "000001\n"
    );
}

/// A tar archive of `entries`, as a hostile packer could write it.
fn tar_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, body) in entries {
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..108].copy_from_slice(b"0000644\0");
        h[108..116].copy_from_slice(b"0000000\0");
        h[116..124].copy_from_slice(b"0000000\0");
        h[124..136].copy_from_slice(format!("{:011o}\0", body.len()).as_bytes());
        h[136..148].copy_from_slice(b"00000000000\0");
        h[156] = b'0';
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(body);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.resize(out.len() + 1024, 0);
    out
}

#[test]
fn a_damaged_or_hostile_archive_is_refused_and_the_index_left_as_it_was() {
    let p = packed();
    let good = std::fs::read(&p.file).unwrap();
    let manifest = std::fs::read(p.index.join("generations/000001/manifest.json")).unwrap();
    let blob = std::fs::read(p.index.join("generations/000001/graph.blob")).unwrap();
    let mut flipped = good.clone();
    // A byte inside the last file's body.
    let at = good.len() - 2048;
    flipped[at] ^= 0x20;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("flipped", flipped, "INVALID_ARTIFACT"),
        (
            "cut short",
            good[..good.len() / 2].to_vec(),
            "INVALID_ARTIFACT",
        ),
        ("not a tar", b"hello".to_vec(), "INVALID_ARTIFACT"),
        (
            "a path out of the index",
            tar_of(&[("manifest.json", &manifest), ("../../evil", b"x")]),
            "INVALID_ARTIFACT",
        ),
        (
            "the manifest not first",
            tar_of(&[("graph.blob", &blob), ("manifest.json", &manifest)]),
            "INVALID_ARTIFACT",
        ),
        (
            "files missing",
            tar_of(&[("manifest.json", &manifest), ("graph.blob", &blob)]),
            "INVALID_ARTIFACT",
        ),
    ];
    // Every file as packed, but a manifest that names a checkout: a server would read there.
    let gen_dir = p.index.join("generations/000001");
    let rooted = String::from_utf8(manifest.clone())
        .unwrap()
        .replacen("\"root\": \"\"", "\"root\": \"/etc\"", 1)
        .into_bytes();
    assert_ne!(rooted, manifest);
    let files = generation_dir_files(&gen_dir);
    let mut entries: Vec<(&str, &[u8])> = vec![("manifest.json", &rooted)];
    entries.extend(files.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
    let mut cases = cases;
    cases.push(("a checkout path", tar_of(&entries), "INVALID_ARTIFACT"));
    // The same files with the manifest as packed install: the forgery is what was refused.
    let mut honest: Vec<(&str, &[u8])> = vec![("manifest.json", &manifest)];
    honest.extend(files.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
    let honest = tar_of(&honest);

    let other = tempfile::tempdir().unwrap();
    let index = other.path().join("index");
    compile_into(
        &index,
        [format!(
            "inventory={}",
            workspace().join("fixtures/go/inventory").display()
        )],
    );
    let before = generation_files(&index);
    for (what, bytes, code) in cases {
        let file = other.path().join("bad.kgpack");
        std::fs::write(&file, &bytes).unwrap();
        let o = kivgraph(&index, &["pull", file.to_str().unwrap()]);
        assert!(!o.status.success(), "{what}: accepted");
        assert!(text(&o).contains(code), "{what}: {}", text(&o));
        assert_eq!(
            std::fs::read_to_string(index.join("CURRENT")).unwrap(),
            "000001\n",
            "{what}"
        );
        assert_eq!(generation_files(&index), before, "{what}");
        assert!(!other.path().join("evil").exists());
        let left: Vec<String> = std::fs::read_dir(index.join("generations"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["000001"], "{what}: left {left:?}");
    }
    let file = other.path().join("honest.kgpack");
    std::fs::write(&file, &honest).unwrap();
    let o = kivgraph(&index, &["pull", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
}
