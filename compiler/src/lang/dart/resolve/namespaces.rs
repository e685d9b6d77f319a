//! Export and import namespaces: `export` chains to a fixed point, `show`/`hide` honoured,
//! unprefixed imports and prefixes, and the extensions each library sees.

use super::*;

impl Resolver<'_> {
    pub(super) fn lib_of_target(&self, t: &UriTarget) -> Option<usize> {
        match t {
            UriTarget::Unit(x) => Some(self.units[*x].lib),
            _ => None,
        }
    }

    pub(super) fn filtered(
        ns: &Namespace,
        show: &Option<Vec<(String, u32, u32)>>,
        hide: &[String],
    ) -> Namespace {
        ns.iter()
            .filter(|(k, _)| {
                show.as_ref()
                    .is_none_or(|s| s.iter().any(|(n, _, _)| n == *k))
                    && !hide.iter().any(|h| h == *k)
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    pub(super) fn namespaces(&mut self) {
        let nl = self.libs.len();
        for l in 0..nl {
            let mut own = Namespace::new();
            for (name, ds) in &self.libs[l].scope {
                if name.starts_with('_') || name.starts_with("extension@") {
                    continue;
                }
                own.entry(name.clone())
                    .or_default()
                    .extend(ds.iter().map(|d| Bind::Decl(*d)));
            }
            self.libs[l].exported = own;
        }
        // Exports to a fixed point: namespaces only grow, so cycles end.
        for _round in 0..(nl + 2).min(64) {
            let mut changed = false;
            for l in 0..nl {
                for &u in &self.libs[l].units.clone() {
                    for (d, dir) in self.units[u].parsed.directives.iter().enumerate() {
                        if dir.kind != DirectiveKind::Export {
                            continue;
                        }
                        let (add, open) = match &self.units[u].targets[d] {
                            UriTarget::Unit(t) => self.brought(self.units[*t].lib, dir),
                            _ => Self::brought_opaque(dir),
                        };
                        let lib = &mut self.libs[l];
                        if open && !lib.export_open {
                            lib.export_open = true;
                            changed = true;
                        }
                        for (k, v) in add {
                            if lib.scope.contains_key(&k) {
                                continue;
                            }
                            let e = lib.exported.entry(k).or_default();
                            for b in v {
                                changed |= e.insert(b);
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for l in 0..nl {
            let mut unprefixed = Namespace::new();
            let mut unprefixed_open = false;
            let mut prefixes: HashMap<String, (Namespace, bool)> = HashMap::default();
            let mut imported = Vec::new();
            let mut extensions = Vec::new();
            for &u in &self.libs[l].units {
                for (d, dir) in self.units[u].parsed.directives.iter().enumerate() {
                    if dir.kind != DirectiveKind::Import {
                        continue;
                    }
                    let (ns, open) = match &self.units[u].targets[d] {
                        UriTarget::Unit(t) => {
                            let t = self.units[*t].lib;
                            if !imported.contains(&t) {
                                imported.push(t);
                            }
                            // The libraries whose declarations the import brings in.
                            for b in self.libs[t].exported.values().flatten() {
                                if let Bind::Decl(x) = b {
                                    let xl = self.units[x.0].lib;
                                    if !imported.contains(&xl) {
                                        imported.push(xl);
                                    }
                                }
                            }
                            self.brought(t, dir)
                        }
                        UriTarget::Sdk(s) if s == "dart:core" && dir.prefix.is_none() => {
                            (Namespace::new(), false)
                        }
                        _ => Self::brought_opaque(dir),
                    };
                    for b in ns.values().flatten() {
                        if let Bind::Decl(x) = b
                            && self.units[x.0].parsed.decls[x.1].extension
                            && !extensions.contains(x)
                        {
                            extensions.push(*x);
                        }
                    }
                    let (target, target_open) = match &dir.prefix {
                        Some(p) => {
                            let e = prefixes.entry(p.clone()).or_default();
                            (&mut e.0, &mut e.1)
                        }
                        None => (&mut unprefixed, &mut unprefixed_open),
                    };
                    *target_open |= open;
                    for (k, v) in ns {
                        target.entry(k).or_default().extend(v);
                    }
                }
            }
            let lib = &mut self.libs[l];
            lib.unprefixed = unprefixed;
            lib.unprefixed_open = unprefixed_open;
            lib.prefixes = prefixes;
            lib.imported = imported;
            lib.extensions.extend(extensions);
        }
    }

    /// What a directive to library `t` brings in: its exports through `show`/`hide`, and
    /// whether it may bring more (an open export namespace, no `show`).
    fn brought(&self, t: usize, dir: &Directive) -> (Namespace, bool) {
        (
            Self::filtered(&self.libs[t].exported, &dir.show, &dir.hide),
            self.libs[t].export_open && dir.show.is_none(),
        )
    }

    /// What a directive to no compiled library brings in: its `show` names, bound to nothing,
    /// and without `show` any name.
    fn brought_opaque(dir: &Directive) -> (Namespace, bool) {
        (Self::opaque(&dir.show), dir.show.is_none())
    }

    pub(super) fn opaque(show: &Option<Vec<(String, u32, u32)>>) -> Namespace {
        let mut ns = Namespace::new();
        if let Some(s) = show {
            for (n, _, _) in s {
                ns.entry(n.clone()).or_default().insert(Bind::Opaque);
            }
        }
        ns
    }

    /// What a namespace binds a name to: declarations (one when exact), or opaque.
    pub(super) fn ns_hit(ns: &Namespace, name: &str) -> Option<(Vec<DeclRef>, bool)> {
        let set = ns.get(name)?;
        let decls: Vec<DeclRef> = set
            .iter()
            .filter_map(|b| match b {
                Bind::Decl(d) => Some(*d),
                Bind::Opaque => None,
            })
            .collect();
        Some((decls, set.contains(&Bind::Opaque)))
    }
}
