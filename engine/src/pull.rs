//! `kivgraph pull`: installs a packed generation (`kivgraph-compile pack`) from a file or an
//! `http://` URL as a new generation of the index (SPEC 1.11).
//!
//! The archive is checked whole before it is published ([`kivgraph_format::pack::install`]);
//! when a SHA-256 is known (`--sha256`, else `SOURCE.sha256` beside the file or the URL) the
//! archive must have it. A generation holds no path, so what it serves reads sources only from
//! the checkouts this machine maps (`checkouts.json`, `--source`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use kivgraph_format::IndexDir;
use sha2::{Digest, Sha256};

/// The largest archive a URL may deliver.
const MAX_DOWNLOAD: u64 = 64 << 30;

/// What went wrong, with the code the command prints.
#[derive(Debug)]
pub struct PullError {
    pub code: &'static str,
    pub message: String,
}

fn err(code: &'static str, message: impl Into<String>) -> PullError {
    PullError {
        code,
        message: message.into(),
    }
}

/// Installs `source` into `index`; returns the line to print.
pub fn pull(source: &str, sha256: Option<&str>, index: &Path) -> Result<String, PullError> {
    std::fs::create_dir_all(index)
        .map_err(|e| err("IO_ERROR", format!("{}: {e}", index.display())))?;
    let mut downloaded = None;
    let (file, expected) = if let Some(rest) = source.strip_prefix("http://") {
        let tmp = index.join(format!(".pull-{}.kgpack", std::process::id()));
        let mut out = std::fs::File::create(&tmp)
            .map_err(|e| err("IO_ERROR", format!("{}: {e}", tmp.display())))?;
        get(rest, &mut out, MAX_DOWNLOAD)?;
        downloaded = Some(Remove(tmp.clone()));
        let expected = match sha256 {
            Some(s) => Some(s.to_string()),
            None => {
                let mut sum = Vec::new();
                match get(&format!("{rest}.sha256"), &mut sum, 4096) {
                    Ok(()) => Some(String::from_utf8_lossy(&sum).into_owned()),
                    Err(_) => None,
                }
            }
        };
        (tmp, expected)
    } else if source.contains("://") {
        return Err(err(
            "INVALID_ARGUMENT",
            format!(
                "{source}: only http:// URLs are fetched; download the file and pull it from disk"
            ),
        ));
    } else {
        let file = PathBuf::from(source);
        let expected = sha256.map(str::to_string).or_else(|| {
            let mut sum = file.clone().into_os_string();
            sum.push(".sha256");
            std::fs::read_to_string(sum).ok()
        });
        (file, expected)
    };
    let expected = expected.map(|s| {
        s.split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase()
    });
    let actual = digest(&file)?;
    let checked = match &expected {
        Some(want) if *want != actual => {
            return Err(err(
                "DIGEST_MISMATCH",
                format!("{source}: sha256 {actual}, expected {want}; nothing was installed"),
            ));
        }
        Some(_) => "sha256 checked",
        None => "no sha256 was given to check",
    };
    let installed = kivgraph_format::pack::install(&file, &IndexDir::new(index)).map_err(|e| {
        err(
            "INVALID_ARTIFACT",
            format!("{source}: {e}; nothing was installed"),
        )
    })?;
    drop(downloaded);
    Ok(format!(
        "installed generation {:06} (packed as {:06}) in {}; {checked} ({actual})\n",
        installed.generation_id,
        installed.packed_id,
        installed.dir.display()
    ))
}

/// Removes a file when dropped.
struct Remove(PathBuf);

impl Drop for Remove {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn digest(file: &Path) -> Result<String, PullError> {
    let mut f = std::fs::File::open(file)
        .map_err(|e| err("NOT_FOUND", format!("{}: {e}", file.display())))?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h)
        .map_err(|e| err("IO_ERROR", format!("{}: {e}", file.display())))?;
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// `GET http://<rest>` into `out`, following up to five redirects to `http://` URLs; at most
/// `limit` bytes of body.
fn get(rest: &str, out: &mut dyn Write, limit: u64) -> Result<(), PullError> {
    let mut rest = rest.to_string();
    for _ in 0..5 {
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest.as_str(), "/"),
        };
        let host_port = if authority.contains(':') {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        let fail = |e: std::io::Error| err("FETCH_FAILED", format!("http://{rest}: {e}"));
        let mut stream = TcpStream::connect(&host_port).map_err(fail)?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(fail)?;
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: kivgraph\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        )
        .map_err(fail)?;
        let mut r = BufReader::new(stream);
        let mut status = String::new();
        r.read_line(&mut status).map_err(fail)?;
        let code: u16 = status
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| err("FETCH_FAILED", format!("http://{rest}: not an HTTP answer")))?;
        let mut length = None;
        let mut chunked = false;
        let mut location = None;
        loop {
            let mut line = String::new();
            r.read_line(&mut line).map_err(fail)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
                match k.as_str() {
                    "content-length" => length = v.parse::<u64>().ok(),
                    "transfer-encoding" => chunked = v.eq_ignore_ascii_case("chunked"),
                    "location" => location = Some(v.to_string()),
                    _ => {}
                }
            }
        }
        if matches!(code, 301 | 302 | 303 | 307 | 308) {
            let Some(next) = location.and_then(|l| l.strip_prefix("http://").map(str::to_string))
            else {
                return Err(err(
                    "FETCH_FAILED",
                    format!("http://{rest}: redirected to a URL that is not http://"),
                ));
            };
            rest = next;
            continue;
        }
        if code != 200 {
            return Err(err("FETCH_FAILED", format!("http://{rest}: HTTP {code}")));
        }
        let too_big = || err("FETCH_FAILED", format!("http://{rest}: over {limit} bytes"));
        if length.is_some_and(|n| n > limit) {
            return Err(too_big());
        }
        let mut copied = 0u64;
        let mut copy = |src: &mut dyn Read, n: Option<u64>| -> Result<(), PullError> {
            let mut src = src.take(n.unwrap_or(u64::MAX).min(limit + 1 - copied));
            let got = std::io::copy(&mut src, out).map_err(fail)?;
            copied += got;
            if copied > limit {
                return Err(too_big());
            }
            if n.is_some_and(|n| got != n) {
                return Err(err("FETCH_FAILED", format!("http://{rest}: cut short")));
            }
            Ok(())
        };
        if chunked {
            loop {
                let mut size = String::new();
                r.read_line(&mut size).map_err(fail)?;
                let n = u64::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|_| err("FETCH_FAILED", format!("http://{rest}: bad chunk")))?;
                if n == 0 {
                    break;
                }
                copy(&mut r, Some(n))?;
                let mut crlf = String::new();
                r.read_line(&mut crlf).map_err(fail)?;
            }
        } else {
            copy(&mut r, length)?;
        }
        return Ok(());
    }
    Err(err(
        "FETCH_FAILED",
        format!("http://{rest}: too many redirects"),
    ))
}
