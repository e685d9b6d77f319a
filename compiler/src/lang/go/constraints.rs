//! Go build constraints, evaluated for the default target linux/amd64 (gc, cgo enabled).
//!
//! A file is built when its name suffix (`_linux.go`, `_windows_arm64.go`, …) and its
//! `//go:build` line (or, without one, its legacy `// +build` lines) both admit the target.

const GOOS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "js",
    "linux",
    "nacl",
    "netbsd",
    "openbsd",
    "plan9",
    "solaris",
    "wasip1",
    "windows",
    "zos",
];
const GOARCH: &[&str] = &[
    "386",
    "amd64",
    "amd64p32",
    "arm",
    "armbe",
    "arm64",
    "arm64be",
    "loong64",
    "mips",
    "mipsle",
    "mips64",
    "mips64le",
    "mips64p32",
    "mips64p32le",
    "ppc",
    "ppc64",
    "ppc64le",
    "riscv",
    "riscv64",
    "s390",
    "s390x",
    "sparc",
    "sparc64",
    "wasm",
];

/// Whether `tag` holds for the default target.
fn tag_holds(tag: &str) -> bool {
    match tag {
        "linux" | "amd64" | "unix" | "gc" | "cgo" => true,
        // The experiments the gc toolchain enables by default on amd64.
        "goexperiment.regabiargs" | "goexperiment.regabiwrappers" => true,
        t if t.starts_with("go1.") => t[4..].parse::<u32>().is_ok_and(|minor| minor <= 24),
        _ => false,
    }
}

/// Whether the file name admits the default target (`_test` is ignored here).
pub fn file_name_admits(name: &str) -> bool {
    if name.starts_with('_') || name.starts_with('.') {
        return false;
    }
    let stem = name.strip_suffix(".go").unwrap_or(name);
    let stem = stem.strip_suffix("_test").unwrap_or(stem);
    let parts: Vec<&str> = stem.split('_').collect();
    if parts.len() < 2 {
        return true;
    }
    let last = parts[parts.len() - 1];
    let prev = if parts.len() >= 3 {
        Some(parts[parts.len() - 2])
    } else {
        None
    };
    if GOARCH.contains(&last) {
        if let Some(os) = prev.filter(|p| GOOS.contains(p)) {
            return tag_holds(os) && tag_holds(last);
        }
        return tag_holds(last);
    }
    if GOOS.contains(&last) {
        return tag_holds(last);
    }
    true
}

/// Whether the leading comments of `source` admit the default target.
pub fn header_admits(source: &str) -> bool {
    let mut legacy: Vec<&str> = Vec::new();
    for line in source.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("/*") || t.starts_with('*') {
            continue;
        }
        if !t.starts_with("//") {
            break; // the package clause or code: constraints end here
        }
        if let Some(expr) = t.strip_prefix("//go:build") {
            return eval(expr.trim()).unwrap_or(true);
        }
        if let Some(expr) = t.strip_prefix("// +build") {
            legacy.push(expr.trim());
        }
    }
    // Legacy lines: space = OR, comma = AND, `!` negates, several lines AND together.
    legacy.iter().all(|line| {
        line.split_whitespace().any(|alt| {
            alt.split(',').all(|term| match term.strip_prefix('!') {
                Some(t) => !tag_holds(t),
                None => tag_holds(term),
            })
        })
    })
}

/// Evaluates a `//go:build` expression; `None` when it does not parse.
fn eval(expr: &str) -> Option<bool> {
    let tokens = tokenize(expr)?;
    let mut p = Parser { tokens, pos: 0 };
    let v = p.or()?;
    (p.pos == p.tokens.len()).then_some(v)
}

fn tokenize(s: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' => i += 1,
            b'(' | b')' | b'!' => {
                out.push((b[i] as char).to_string());
                i += 1;
            }
            b'&' | b'|' if i + 1 < b.len() && b[i + 1] == b[i] => {
                out.push(s[i..i + 2].to_string());
                i += 2;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.')
                {
                    i += 1;
                }
                out.push(s[start..i].to_string());
            }
            _ => return None,
        }
    }
    Some(out)
}

struct Parser {
    tokens: Vec<String>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(String::as_str)
    }
    fn or(&mut self) -> Option<bool> {
        let mut v = self.and()?;
        while self.peek() == Some("||") {
            self.pos += 1;
            let r = self.and()?;
            v = v || r;
        }
        Some(v)
    }
    fn and(&mut self) -> Option<bool> {
        let mut v = self.not()?;
        while self.peek() == Some("&&") {
            self.pos += 1;
            let r = self.not()?;
            v = v && r;
        }
        Some(v)
    }
    fn not(&mut self) -> Option<bool> {
        match self.peek()? {
            "!" => {
                self.pos += 1;
                Some(!self.not()?)
            }
            "(" => {
                self.pos += 1;
                let v = self.or()?;
                (self.peek() == Some(")")).then(|| self.pos += 1)?;
                Some(v)
            }
            "&&" | "||" | ")" => None,
            tag => {
                let v = tag_holds(tag);
                self.pos += 1;
                Some(v)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_suffixes() {
        assert!(file_name_admits("a.go"));
        assert!(file_name_admits("a_linux.go"));
        assert!(file_name_admits("a_linux_amd64_test.go"));
        assert!(!file_name_admits("a_windows.go"));
        assert!(!file_name_admits("a_arm64.go"));
        assert!(!file_name_admits("a_linux_arm64.go"));
        assert!(!file_name_admits("_a.go"));
        assert!(file_name_admits("read_me.go"));
    }

    #[test]
    fn build_lines() {
        assert!(!header_admits("//go:build windows\n\npackage a\n"));
        assert!(header_admits(
            "//go:build linux && (amd64 || arm64)\npackage a\n"
        ));
        assert!(header_admits("//go:build !windows\npackage a\n"));
        assert!(!header_admits("//go:build ignore\npackage a\n"));
        assert!(header_admits("// +build linux darwin\n\npackage a\n"));
        assert!(!header_admits("// +build darwin\n\npackage a\n"));
        assert!(header_admits(
            "// Copyright\n\n// Package a.\npackage a\n//go:build windows\n"
        ));
        assert!(header_admits("//go:build go1.18\npackage a\n"));
    }
}
