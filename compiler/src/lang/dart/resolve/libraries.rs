//! Libraries: URIs resolved to units, a library built from its defining unit and its parts,
//! its name (`package:` URI or path) and the graph package and symbols of each.

use super::*;

impl Resolver<'_> {
    pub(super) fn resolve_uri(&self, u: usize, uri: &str) -> UriTarget {
        let unit = &self.units[u];
        if let Some(lib) = uri.strip_prefix("dart:") {
            return UriTarget::Sdk(format!("dart:{lib}"));
        }
        if let Some(rest) = uri.strip_prefix("package:") {
            let Some((name, path)) = rest.split_once('/') else {
                return UriTarget::Missing(URI_NOT_RESOLVED, uri.to_string());
            };
            let Some(list) = self.packages.providers.get(name) else {
                return UriTarget::Missing(PACKAGE_PROVIDER_NOT_FOUND, name.to_string());
            };
            let own: Vec<&(RepoId, String)> =
                list.iter().filter(|(r, _)| *r == unit.repo).collect();
            let others: BTreeSet<RepoId> = list
                .iter()
                .filter(|(r, _)| *r != unit.repo)
                .map(|(r, _)| *r)
                .collect();
            let candidates: Vec<&(RepoId, String)> = if !own.is_empty() {
                own
            } else if others.len() == 1 {
                list.iter().collect()
            } else {
                return UriTarget::Missing(PACKAGE_PROVIDER_NOT_FOUND, name.to_string());
            };
            for (repo, dir) in candidates {
                if let Some(p) = join(dir, path)
                    && let Some(&t) = self.by_path.get(&(*repo, p))
                {
                    return UriTarget::Unit(t);
                }
            }
            return UriTarget::Missing(URI_NOT_RESOLVED, uri.to_string());
        }
        if uri.contains(':') || uri.starts_with('/') {
            return UriTarget::Missing(URI_NOT_RESOLVED, uri.to_string());
        }
        let dir = unit.path.rsplit_once('/').map_or("", |(d, _)| d);
        match join(dir, uri).and_then(|p| self.by_path.get(&(unit.repo, p))) {
            Some(&t) => UriTarget::Unit(t),
            None => UriTarget::Missing(URI_NOT_RESOLVED, uri.to_string()),
        }
    }

    /// The URI of a library file: `package:<name>/<path under lib/>`, else its path.
    pub(super) fn library_name(&self, repo: RepoId, path: &str) -> String {
        let mut best: Option<(usize, String)> = None;
        for (name, list) in &self.packages.providers {
            for (r, dir) in list {
                if *r != repo {
                    continue;
                }
                let rest = if dir.is_empty() {
                    Some(path)
                } else {
                    path.strip_prefix(&format!("{dir}/"))
                };
                if let Some(rest) = rest
                    && best.as_ref().is_none_or(|(l, _)| dir.len() > *l)
                {
                    best = Some((dir.len(), format!("package:{name}/{rest}")));
                }
            }
        }
        best.map_or_else(|| path.to_string(), |(_, n)| n)
    }

    pub(super) fn pubspec_of(&self, repo: RepoId, path: &str) -> Option<String> {
        self.packages
            .pubspecs
            .iter()
            .filter(|p| {
                p.repo == repo && (p.dir.is_empty() || path.starts_with(&format!("{}/", p.dir)))
            })
            .max_by_key(|p| p.dir.len())
            .map(|p| p.name.clone())
    }

    pub(super) fn libraries(&mut self) {
        let n = self.units.len();
        let mut owner: Vec<Option<usize>> = vec![None; n];
        for (u, o) in owner.iter_mut().enumerate() {
            if self.units[u].parsed.part_of.is_none() {
                *o = Some(self.libs.len());
                self.libs.push(Library {
                    units: vec![u],
                    ..Library::default()
                });
            }
        }
        for l in 0..self.libs.len() {
            let u = self.libs[l].units[0];
            for (d, dir) in self.units[u].parsed.directives.iter().enumerate() {
                if dir.kind != DirectiveKind::Part {
                    continue;
                }
                if let UriTarget::Unit(p) = self.units[u].targets[d]
                    && owner[p].is_none()
                    && self.units[p].parsed.part_of.is_some()
                {
                    owner[p] = Some(l);
                    self.libs[l].units.push(p);
                }
            }
        }
        for (u, o) in owner.iter_mut().enumerate() {
            if o.is_none() {
                // A part no library claims: a library of its own.
                *o = Some(self.libs.len());
                self.libs.push(Library {
                    units: vec![u],
                    ..Library::default()
                });
            }
            self.units[u].lib = o.unwrap_or(0);
        }
        for l in 0..self.libs.len() {
            let u = self.libs[l].units[0];
            self.libs[l].name = self.library_name(self.units[u].repo, &self.units[u].path);
            for &x in &self.libs[l].units.clone() {
                for (name, &d) in &self.units[x].parsed.top {
                    self.libs[l]
                        .scope
                        .entry(name.clone())
                        .or_default()
                        .push((x, d));
                }
                for (di, d) in self.units[x].parsed.decls.iter().enumerate() {
                    if d.parent.is_some() && !d.ctor && !d.is_static {
                        self.libs[l]
                            .members
                            .entry(d.name.clone())
                            .or_default()
                            .push((x, di));
                    }
                    if d.extension {
                        self.libs[l].extensions.push((x, di));
                    }
                }
            }
        }
    }

    pub(super) fn symbols(&mut self) {
        let mut names_used: HashSet<(RepoId, String)> = HashSet::default();
        for l in 0..self.libs.len() {
            let u0 = self.libs[l].units[0];
            let repo = self.units[u0].repo;
            let mut name = self.libs[l].name.clone();
            if !names_used.insert((repo, name.clone())) {
                name = self.units[u0].path.clone();
                names_used.insert((repo, name.clone()));
                self.libs[l].name = name.clone();
            }
            let module = self.pubspec_of(repo, &self.units[u0].path);
            let pid = self.facts.push_package(Package {
                repo,
                language: Language::Dart,
                name: name.clone(),
                path: self.units[u0].path.clone(),
                module,
            });
            self.libs[l].package = pid;
            for (i, &u) in self.libs[l].units.clone().iter().enumerate() {
                let file = self.units[u].file;
                let path = self.units[u].path.clone();
                let home = Home {
                    repo,
                    package: pid,
                    file,
                    language: Language::Dart,
                };
                let qn = if i == 0 {
                    name.clone()
                } else {
                    format!("part:{path}")
                };
                let module_sym = home.push_module(self.facts, &path, qn);
                let mut syms = Vec::with_capacity(self.units[u].parsed.decls.len());
                for d in &self.units[u].parsed.decls {
                    let exported = !d.name.starts_with('_')
                        && !d.name.starts_with("extension@")
                        && d.parent.is_none_or(|p| {
                            let pd = &self.units[u].parsed.decls[p];
                            !pd.name.starts_with('_') && !pd.name.starts_with("extension@")
                        });
                    syms.push(self.facts.push_symbol(decl_symbol!(home, d, exported)));
                }
                self.units[u].syms = syms;
                self.units[u].module_sym = module_sym;
            }
        }
    }
}
