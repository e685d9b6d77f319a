//! Dart packages: the `name:` of every `pubspec.yaml` and the entries of the
//! `.dart_tool/package_config.json` beside it.

use std::collections::BTreeMap;

use crate::facts::{Diagnostic, FactSet, RepoId};
use crate::lang::ConfigFile;
pub use crate::lang::shared::join;

/// A `pubspec.yaml`: the package rooted at its directory.
#[derive(Clone, Debug)]
pub struct Pubspec {
    pub repo: RepoId,
    /// Repository-relative directory, `""` for the root.
    pub dir: String,
    pub name: String,
}

/// Where packages are: name → (repository, repository-relative directory that `package:name/`
/// addresses), in the order found (pubspecs first, then package configs).
#[derive(Debug, Default)]
pub struct Packages {
    pub pubspecs: Vec<Pubspec>,
    pub providers: BTreeMap<String, Vec<(RepoId, String)>>,
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn diag(facts: &mut FactSet, repo: RepoId, path: &str, message: String) {
    let repository = facts.repos[repo].name.clone();
    facts.diagnostics.push(Diagnostic {
        repository,
        path: path.to_string(),
        message,
    });
}

/// Percent-decoding of the few escapes a file URI of a checkout may hold.
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) =
                u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or(""), 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads every pubspec and package config of the Dart configuration files.
pub fn read(facts: &mut FactSet, configs: &[ConfigFile]) -> Packages {
    let mut out = Packages::default();
    let mut configs: Vec<&ConfigFile> = configs.iter().collect();
    configs.sort_by(|a, b| (a.repo, &a.path).cmp(&(b.repo, &b.path)));
    for c in &configs {
        let file = c.path.rsplit('/').next().unwrap_or(&c.path);
        if file != "pubspec.yaml" {
            continue;
        }
        match yaml_rust2::YamlLoader::load_from_str(&c.text) {
            Ok(docs) => {
                let name = docs
                    .first()
                    .and_then(|d| d["name"].as_str())
                    .map(str::to_string);
                match name {
                    Some(name) if !name.is_empty() => {
                        let dir = dir_of(&c.path).to_string();
                        let lib = if dir.is_empty() {
                            "lib".to_string()
                        } else {
                            format!("{dir}/lib")
                        };
                        out.providers
                            .entry(name.clone())
                            .or_default()
                            .push((c.repo, lib));
                        out.pubspecs.push(Pubspec {
                            repo: c.repo,
                            dir,
                            name,
                        });
                    }
                    _ => diag(
                        facts,
                        c.repo,
                        &c.path,
                        "pubspec.yaml has no package name; its directory names no package".into(),
                    ),
                }
            }
            Err(e) => diag(
                facts,
                c.repo,
                &c.path,
                format!("pubspec.yaml is not valid YAML ({e}); its directory names no package"),
            ),
        }
    }
    let roots: Vec<(RepoId, String)> = facts
        .repos
        .iter()
        .enumerate()
        .map(|(i, r)| (RepoId(i), r.root.trim_end_matches('/').to_string()))
        .collect();
    for c in &configs {
        if !c.path.ends_with("package_config.json") {
            continue;
        }
        let v: serde_json::Value = match serde_json::from_str(&c.text) {
            Ok(v) => v,
            Err(e) => {
                diag(
                    facts,
                    c.repo,
                    &c.path,
                    format!("package_config.json is not valid JSON ({e}); it maps no package"),
                );
                continue;
            }
        };
        let Some(list) = v.get("packages").and_then(|p| p.as_array()) else {
            diag(
                facts,
                c.repo,
                &c.path,
                "package_config.json has no \"packages\" list; it maps no package".into(),
            );
            continue;
        };
        let here = dir_of(&c.path).to_string();
        for p in list {
            let (Some(name), Some(root)) = (
                p.get("name").and_then(|x| x.as_str()),
                p.get("rootUri").and_then(|x| x.as_str()),
            ) else {
                continue;
            };
            let pkg_uri = p
                .get("packageUri")
                .and_then(|x| x.as_str())
                .unwrap_or("lib/");
            // The absolute directory, then the compiled repository that holds it.
            let abs = if let Some(rest) = root.strip_prefix("file://") {
                decode(rest)
            } else if root.contains(':') {
                continue;
            } else {
                let base = format!("{}/{}", roots[c.repo.index()].1, here);
                let Some(j) = join("", &format!("{base}/{}", decode(root))) else {
                    continue;
                };
                format!("/{j}")
            };
            let Some(abs) = join("", &format!("{}/{}", abs.trim_end_matches('/'), pkg_uri)) else {
                continue;
            };
            let abs = format!("/{abs}");
            for (repo, r) in &roots {
                let r = if r.starts_with('/') {
                    r.clone()
                } else {
                    format!("/{r}")
                };
                let rel = if abs == r {
                    Some(String::new())
                } else {
                    abs.strip_prefix(&format!("{r}/")).map(str::to_string)
                };
                if let Some(rel) = rel {
                    let e = out.providers.entry(name.to_string()).or_default();
                    if !e.contains(&(*repo, rel.clone())) {
                        e.push((*repo, rel));
                    }
                    break;
                }
            }
        }
    }
    out
}
