//! Paths and types: the segments of a path, the written type of a type node and the type
//! references inside it, `<T as Tr>::name`, and the leaves of `use` trees.

use crate::lang::KindExt;
use tree_sitter::Node;

use super::{Import, Leaf, MAX_DEPTH, Ns, PRIMITIVES, RefKind, SelfCtx, Ty, Walker, What, field};
use crate::lang::{collapse, kids};

impl Walker<'_> {
    /// The name an impl header uses for a type: its last path segment, generic arguments and
    /// `&` dropped.
    pub(super) fn type_name(&self, mut n: Node) -> String {
        // `&`, `*const` and generic arguments are looked through, iteratively.
        for _ in 0..MAX_DEPTH {
            match n.kind_name() {
                "generic_type" | "reference_type" | "pointer_type" => match field(n, "type") {
                    Some(t) => n = t,
                    None => return String::new(),
                },
                _ => break,
            }
        }
        match n.kind_name() {
            "type_identifier" | "primitive_type" => self.t(n).to_string(),
            "scoped_type_identifier" | "scoped_identifier" => {
                field(n, "name").map_or_else(String::new, |x| self.t(x).to_string())
            }
            _ => collapse(self.t(n)),
        }
    }

    pub(super) fn path_segs(&self, n: Node) -> Option<Vec<String>> {
        if self.depth.get() > MAX_DEPTH {
            return None;
        }
        match n.kind_name() {
            "identifier" | "type_identifier" | "self" | "super" | "crate" | "field_identifier" => {
                Some(vec![self.t(n).to_string()])
            }
            "metavariable" => (self.t(n) == "$crate").then(|| vec!["$crate".to_string()]),
            "scoped_identifier" | "scoped_type_identifier" => {
                let name = field(n, "name")?;
                let mut segs = match field(n, "path") {
                    Some(p)
                        if p.kind_name() == "bracketed_type" || p.kind_name() == "generic_type" =>
                    {
                        if p.kind_name() == "generic_type" {
                            self.depth.nested(|| self.path_segs(field(p, "type")?))?
                        } else {
                            return None;
                        }
                    }
                    Some(p) => self.depth.nested(|| self.path_segs(p))?,
                    None => vec!["::".to_string()],
                };
                segs.push(self.t(name).to_string());
                Some(segs)
            }
            "generic_type" | "generic_type_with_turbofish" => {
                self.depth.nested(|| self.path_segs(field(n, "type")?))
            }
            "generic_function" => self.depth.nested(|| self.path_segs(field(n, "function")?)),
            _ => None,
        }
    }

    /// The written type of a type node.
    pub(super) fn ty_of(&self, n: Node) -> Ty {
        if self.depth.get() > MAX_DEPTH {
            return Ty::Unknown;
        }
        match n.kind_name() {
            "reference_type" | "pointer_type" => field(n, "type").map_or(Ty::Unknown, |t| {
                Ty::Ref(Box::new(self.depth.nested(|| self.ty_of(t))))
            }),
            "type_identifier" => {
                let nm = self.t(n);
                if let Some(b) = self.generic(nm) {
                    return Ty::Param(nm.to_string(), b.clone());
                }
                Ty::Path(vec![nm.to_string()], Vec::new())
            }
            "scoped_type_identifier" | "scoped_identifier" => self
                .depth
                .nested(|| self.path_segs(n))
                .map_or(Ty::Unknown, |s| Ty::Path(s, Vec::new())),
            "generic_type" => {
                let Some(t) = field(n, "type") else {
                    return Ty::Unknown;
                };
                let Some(segs) = self.depth.nested(|| self.path_segs(t)) else {
                    return Ty::Unknown;
                };
                let args = field(n, "type_arguments").map_or_else(Vec::new, |a| {
                    kids(a)
                        .into_iter()
                        .filter(|k| k.kind_name() != "lifetime")
                        .map(|k| self.depth.nested(|| self.ty_of(k)))
                        .collect()
                });
                Ty::Path(segs, args)
            }
            "abstract_type" | "dynamic_type" => {
                let Some(t) = field(n, "trait") else {
                    return Ty::Unknown;
                };
                let ts: Vec<Ty> = if t.kind_name() == "trait_bounds" {
                    kids(t)
                        .into_iter()
                        .map(|k| self.depth.nested(|| self.ty_of(k)))
                        .collect()
                } else {
                    vec![self.depth.nested(|| self.ty_of(t))]
                };
                Ty::Bounds(ts)
            }
            "bounded_type" => Ty::Bounds(
                kids(n)
                    .into_iter()
                    .map(|k| self.depth.nested(|| self.ty_of(k)))
                    .collect(),
            ),
            _ => Ty::Unknown,
        }
    }

    /// Type refs of every path inside a type node.
    pub(super) fn ty(&mut self, n: Node) {
        self.type_refs(n, RefKind::Type);
    }

    pub(super) fn type_refs(&mut self, n: Node, kind: RefKind) {
        if self.deep() {
            return;
        }
        match n.kind_name() {
            "type_identifier" => {
                let nm = self.t(n);
                if nm == "Self" {
                    if matches!(self.selfc, Some(SelfCtx::Impl(_))) {
                        self.push_ref(kind, What::Path(vec![nm.to_string()], Ns::Type), self.at(n));
                    }
                    return;
                }
                if self.generic(nm).is_some() || PRIMITIVES.contains(&nm) {
                    return;
                }
                self.push_ref(kind, What::Path(vec![nm.to_string()], Ns::Type), self.at(n));
            }
            "scoped_type_identifier" => {
                if let Some(segs) = self.deeper(|w| w.path_segs(n)) {
                    if self.scoped_ref(n, segs, kind, Ns::Type) {
                        return;
                    }
                } else if let Some(p) = field(n, "path") {
                    self.deeper(|w| w.qualified(p, n, kind));
                }
                if let Some(p) = field(n, "path")
                    && p.kind_name() == "generic_type"
                    && let Some(a) = field(p, "type_arguments")
                {
                    self.deeper(|w| w.type_refs(a, RefKind::Type));
                }
            }
            "generic_type" => {
                if let Some(t) = field(n, "type") {
                    self.deeper(|w| w.type_refs(t, kind));
                }
                if let Some(a) = field(n, "type_arguments") {
                    // `Tr<Item = T>`: `Item` is the associated type `Tr::Item`.
                    let trait_segs = field(n, "type").and_then(|t| self.deeper(|w| w.path_segs(t)));
                    if let Some(segs) = trait_segs {
                        for b in kids(a)
                            .into_iter()
                            .filter(|k| k.kind_name() == "type_binding")
                        {
                            if let Some(name) = field(b, "name") {
                                let mut path = segs.clone();
                                path.push(self.t(name).to_string());
                                self.push_ref(
                                    RefKind::Type,
                                    What::Path(path, Ns::Type),
                                    self.at(name),
                                );
                            }
                        }
                    }
                    self.deeper(|w| w.type_refs(a, RefKind::Type));
                }
            }
            "type_binding" => {
                if let Some(t) = field(n, "type") {
                    self.deeper(|w| w.type_refs(t, RefKind::Type));
                }
            }
            "trait_bounds" => {
                self.deeper(|w| w.bounds(n, kind));
            }
            "primitive_type" | "lifetime" => {}
            "block" => self.deeper(|w| w.block(n)),
            _ if n.kind_name().ends_with("_expression") || n.kind_name().ends_with("_literal") => {
                self.deeper(|w| w.expr(n))
            }
            "identifier" | "scoped_identifier" => self.deeper(|w| w.expr(n)),
            _ => {
                for k in kids(n) {
                    self.deeper(|w| w.type_refs(k, kind));
                }
            }
        }
    }

    /// `<T as Tr>::name` (in a path position `p` of scoped node `n`).
    /// A reference to the scoped path `n` (`segs`), at its last segment. A path from a generic
    /// parameter (`T::name`) is `<T as bounds>::name` when `T` has written bounds, else no
    /// reference; true then.
    pub(super) fn scoped_ref(&mut self, n: Node, segs: Vec<String>, kind: RefKind, ns: Ns) -> bool {
        let at = self.name_at(n);
        if let Some(b) = self.generic(&segs[0]) {
            if segs.len() == 2 && !b.is_empty() {
                let what = What::Qual(Ty::Unknown, Ty::Bounds(b.clone()), segs[1].clone());
                self.push_ref(kind, what, at);
            }
            return true;
        }
        self.push_path_ref(kind, segs, ns, n);
        false
    }

    pub(super) fn qualified(&mut self, p: Node, n: Node, kind: RefKind) {
        let Some(q) = kids(p).into_iter().next() else {
            return;
        };
        let Some(name) = field(n, "name") else { return };
        if q.kind_name() == "qualified_type" {
            let (Some(t), Some(a)) = (field(q, "type"), field(q, "alias")) else {
                return;
            };
            self.deeper(|w| w.ty(t));
            self.deeper(|w| w.ty(a));
            let (tt, at) = (self.deeper(|w| w.ty_of(t)), self.deeper(|w| w.ty_of(a)));
            let nm = self.t(name).to_string();
            self.push_ref(kind, What::Qual(tt, at, nm), self.at(name));
        } else {
            self.deeper(|w| w.ty(q));
        }
    }

    pub(super) fn use_tree(&mut self, n: Node, prefix: Vec<String>, exported: bool) {
        if self.deep() {
            return;
        }
        let push = |w: &mut Self, segs: Vec<String>, leaf: Leaf, p: (u32, u32)| {
            w.f.uses.push(Import {
                module: w.module,
                segs,
                leaf,
                exported,
                pos: p,
                source: w.source,
            });
        };
        match n.kind_name() {
            "identifier" | "self" | "super" | "crate" | "scoped_identifier" | "metavariable" => {
                let Some(mut segs) = self.deeper(|w| w.path_segs(n)) else {
                    return;
                };
                let mut full = prefix;
                if segs.first().is_some_and(|s| s == "::") && !full.is_empty() {
                    segs.remove(0);
                }
                full.extend(segs);
                let p = match n.kind_name() {
                    "scoped_identifier" => self.name_at(n),
                    _ => self.at(n),
                };
                push(self, full, Leaf::Name(None), p);
            }
            "use_as_clause" => {
                let (Some(path), Some(alias)) = (field(n, "path"), field(n, "alias")) else {
                    return;
                };
                let Some(segs) = self.deeper(|w| w.path_segs(path)) else {
                    return;
                };
                let mut full = prefix;
                full.extend(segs);
                let p = match path.kind_name() {
                    "scoped_identifier" => self.name_at(path),
                    _ => self.at(path),
                };
                let a = self.t(alias).to_string();
                push(self, full, Leaf::Name(Some(a)), p);
            }
            "use_wildcard" => {
                let mut full = prefix;
                // At the last segment before `*` (the module or enum globbed).
                let mut at = self.at(n);
                if let Some(p) = kids(n).into_iter().next()
                    && let Some(segs) = self.deeper(|w| w.path_segs(p))
                {
                    full.extend(segs);
                    at = match p.kind_name() {
                        "scoped_identifier" => self.name_at(p),
                        _ => self.at(p),
                    };
                }
                push(self, full, Leaf::Glob, at);
            }
            "use_list" => {
                for k in kids(n) {
                    self.deeper(|w| w.use_tree(k, prefix.clone(), exported));
                }
            }
            "scoped_use_list" => {
                let mut full = prefix;
                if let Some(p) = field(n, "path") {
                    if let Some(segs) = self.deeper(|w| w.path_segs(p)) {
                        full.extend(segs);
                    }
                } else {
                    full.push("::".into());
                }
                if let Some(l) = field(n, "list") {
                    self.deeper(|w| w.use_tree(l, full, exported));
                }
            }
            _ => {}
        }
    }
}
