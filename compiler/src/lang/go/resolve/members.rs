//! Members: the fields and methods declared on a type, Go's selector rule (the shallowest member,
//! promoted through embedded fields and interfaces), and the structural facts declarations state
//! (METHOD_OF, EMBEDS, IMPLEMENTS).

use kivgraph_format::{EdgeKind, SymbolKind};

use crate::hash::HashMap;

use super::Resolver;
use super::types::{KnownType, Resolution};
use crate::facts::SymbolId;

/// A type's own members, and whether one of them is an embedded field.
type OwnMembers<'a> = (&'a [(String, SymbolId)], bool);

impl<'a> Resolver<'a> {
    /// Methods and fields declared directly on type `t` (not promoted).
    pub(super) fn direct_members(&self, t: SymbolId) -> &'a [(String, SymbolId)] {
        self.own_members.get(&t).copied().unwrap_or(&[])
    }

    /// The first member of `t` named `name`, declared directly on it.
    fn own_member(&self, t: SymbolId, name: &str) -> Option<SymbolId> {
        match self.member_names.get(&t) {
            Some(first) => first.get(name).copied(),
            None => self
                .direct_members(t)
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, s)| *s),
        }
    }

    /// Go's selector rule: the shallowest member named `name`; a tie at one depth finds nothing.
    pub(super) fn lookup_member(&self, t: SymbolId, name: &str, depth: usize) -> Option<SymbolId> {
        if depth > 5 {
            return None;
        }
        if let Some(s) = self.own_member(t, name) {
            return Some(s);
        }
        let d = self.decl(t);
        if self.facts.symbols[t].kind == SymbolKind::Alias || (!d.is_struct && !d.is_interface) {
            // Alias: every member of the target. Defined type: the underlying type's fields
            // (methods are not inherited, but fields and embedded interfaces' methods are).
            let u = self.underlying_named(t);
            if u != t {
                let found = self.lookup_member(u, name, depth + 1)?;
                let is_method_of_u = self.facts.symbols[found].kind == SymbolKind::Method
                    && !self.decl(u).is_interface;
                if self.facts.symbols[t].kind == SymbolKind::Alias || !is_method_of_u {
                    return Some(found);
                }
            }
            return None;
        }
        // Promoted through embedded fields (struct) or embedded interfaces: of a type with many,
        // only those that can give the name are asked.
        let mut found: Vec<SymbolId> = match self.embed_index.get(&t) {
            Some(ix) => ix
                .any
                .iter()
                .chain(ix.by_name.get(name).into_iter().flatten())
                .filter_map(|&e| self.lookup_member(e, name, depth + 1))
                .collect(),
            None => {
                let mut found = Vec::new();
                self.each_embedded_type(t, |e| {
                    if let Some(m) = self.lookup_member(e, name, depth + 1) {
                        found.push(m);
                    }
                });
                found
            }
        };
        found.sort_unstable();
        found.dedup();
        if found.len() == 1 { found.pop() } else { None }
    }

    /// The embedded fields among the members `own`.
    fn embedded_fields<'m>(
        &self,
        own: &'m [(String, SymbolId)],
    ) -> impl Iterator<Item = SymbolId> + use<'m, '_, 'a> {
        own.iter()
            .map(|(_, s)| *s)
            .filter(|&s| self.decl(s).embedded)
    }

    /// Calls `f` with each named type `t` embeds, as a field (struct) or an interface, resolved
    /// in the file that declares it, in declaration order (fields first).
    fn each_embedded_type(&self, t: SymbolId, mut f: impl FnMut(SymbolId)) {
        let embedded_fields = self
            .embedded_fields(self.direct_members(t))
            .filter_map(|field| Some((field, self.decl(field).ty.as_ref()?)));
        let embedded_interfaces = self.decl(t).embeds.iter().map(|ty| (t, ty));
        for (at, ty) in embedded_fields.chain(embedded_interfaces) {
            let i = &self.info[&at];
            let scope = self.file_scope(i.file, i.pkg);
            if let Resolution::Type(KnownType::Named(e)) = self.resolve_ty(&scope, ty, 0) {
                f(e);
            }
        }
    }

    /// For type `t`, when it embeds more than [`MANY_MEMBERS`] types: which of them can give
    /// each name. A struct or interface type that embeds nothing gives only its own members'
    /// names; the others (an alias, a type defined over another, a type that embeds in turn)
    /// are asked for every name. An interface of 4,000 embedded interfaces was searched through
    /// all of them for each of its 4,000 methods called.
    pub(super) fn embed_index(&self, t: SymbolId) -> Option<super::EmbedIndex> {
        let embeds =
            self.embedded_fields(self.direct_members(t)).count() + self.decl(t).embeds.len();
        if embeds <= super::MANY_MEMBERS {
            return None;
        }
        let mut ix = super::EmbedIndex::default();
        let mut embedded = Vec::new();
        self.each_embedded_type(t, |e| embedded.push(e));
        for e in embedded {
            let d = self.decl(e);
            let own = self.direct_members(e);
            let plain = self.facts.symbols[e].kind != SymbolKind::Alias
                && (d.is_struct || d.is_interface)
                && d.embeds.is_empty()
                && self.embedded_fields(own).next().is_none();
            if !plain {
                ix.any.push(e);
                continue;
            }
            for (name, _) in own {
                let at = ix.by_name.entry(name.clone()).or_default();
                if at.last() != Some(&e) {
                    at.push(e);
                }
            }
        }
        Some(ix)
    }

    /// METHOD_OF and EMBEDS, read off declarations.
    pub(super) fn structural(&mut self) {
        for (fi, f) in self.files.iter().enumerate() {
            for (di, d) in f.go.decls.iter().enumerate() {
                let Some(&sid) = self.sym_of.get(&(fi, di)) else {
                    continue;
                };
                let pi = self.info[&sid].pkg;
                if d.kind == SymbolKind::Method && d.owner.is_some() {
                    // Methods on a type declared in this package (interface methods are members, not methods-of).
                    let owner = d.owner.as_deref().unwrap_or("");
                    let owner_sym = self.pkgs[pi]
                        .scope
                        .get(owner)
                        .and_then(|v| v.iter().copied().find(|&s| self.is_type(s)));
                    if let Some(t) = owner_sym
                        && !self.decl(t).is_interface
                    {
                        self.structural_edge((sid, t), EdgeKind::MethodOf, sid);
                    }
                }
                if d.kind == SymbolKind::Field
                    && d.embedded
                    && let Some(ty) = &d.ty
                {
                    let scope = self.file_scope(fi, pi);
                    if let Resolution::Type(KnownType::Named(t)) = self.resolve_ty(&scope, ty, 0)
                        && let Some(owner) = d.owner.as_deref()
                        && let Some(&owner_sym) =
                            self.pkgs[pi].scope.get(owner).and_then(|v| v.first())
                    {
                        self.structural_edge((owner_sym, t), EdgeKind::Embeds, sid);
                    }
                }
            }
        }
    }

    /// IMPLEMENTS, at type and method level, for interfaces and types of one package whose
    /// method sets the syntax lists completely: every interface method has a same-named method on
    /// the type (declared or promoted) whose parameters and results are written identically. In
    /// one package identical text names identical types, so the fact is certain; across packages
    /// the same text can name different types, so no edge is claimed there.
    pub(super) fn implements(&mut self) {
        let sig_tail =
            |sig: &str, name: &str| sig.find(&format!("{name}(")).map(|i| sig[i..].to_string());
        for (pi, pkg) in self.pkgs.iter().enumerate() {
            let types: Vec<SymbolId> = pkg
                .scope
                .values()
                .flatten()
                .copied()
                .filter(|&s| self.facts.symbols[s].kind == SymbolKind::Type)
                .collect();
            let mut interfaces: Vec<SymbolId> = types
                .iter()
                .copied()
                .filter(|&s| self.decl(s).is_interface && !self.decl(s).opaque_method_set)
                .collect();
            interfaces.sort_unstable();
            let mut concrete: Vec<SymbolId> = types
                .iter()
                .copied()
                .filter(|&s| !self.decl(s).is_interface && !self.decl(s).opaque_method_set)
                .collect();
            concrete.sort_unstable();
            // Each concrete type's own members and whether it embeds, found once; and which of
            // them declare each name. A type that embeds nothing has only its own methods, so
            // the types an interface can match are those declaring its first method's name,
            // and those that embed (a package of 8,000 types and 8,000 interfaces was checked
            // pair by pair, reading each type's members for each interface).
            let own_of: Vec<Option<OwnMembers>> = concrete
                .iter()
                .map(|&t| {
                    let own = self
                        .members
                        .get(&(pi, self.facts.symbols[t].name.clone()))?;
                    Some((own.as_slice(), self.embedded_fields(own).next().is_some()))
                })
                .collect();
            let mut declaring: HashMap<&str, Vec<usize>> = HashMap::default();
            let mut embedding: Vec<usize> = Vec::new();
            for (k, own) in own_of.iter().enumerate() {
                match own {
                    Some((_, true)) => embedding.push(k),
                    Some((own, false)) => {
                        for (name, _) in own.iter() {
                            let at = declaring.entry(name.as_str()).or_default();
                            if at.last() != Some(&k) {
                                at.push(k);
                            }
                        }
                    }
                    None => {}
                }
            }
            for &i in &interfaces {
                let wanted = self.direct_members(i);
                if wanted.is_empty() {
                    continue; // every type satisfies an empty interface: no information
                }
                let mut candidates: Vec<usize> = declaring
                    .get(wanted[0].0.as_str())
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .chain(&embedding)
                    .copied()
                    .collect();
                candidates.sort_unstable();
                for k in candidates {
                    let t = concrete[k];
                    // Cheap rejection first: a type without embedded fields has only its own
                    // methods, so a missing name settles it without any lookup.
                    let Some((own, embeds)) = own_of[k] else {
                        continue; // no methods at all
                    };
                    let declares = |n: &str| match self.member_names.get(&t) {
                        Some(first) => first.contains_key(n),
                        None => own.iter().any(|(m, _)| m == n),
                    };
                    if !embeds && !wanted.iter().all(|(n, _)| declares(n)) {
                        continue;
                    }
                    let mut pairs = Vec::new();
                    for (name, im) in wanted {
                        let Some(m) = self.lookup_member(t, name, 0) else {
                            break;
                        };
                        let (ms, is) = (
                            self.decl(m).signature.clone(),
                            self.decl(*im).signature.clone(),
                        );
                        let same = self.facts.symbols[m].kind == SymbolKind::Method
                            && self.facts.symbols[m].package == self.facts.symbols[t].package
                            && matches!((ms.as_deref().and_then(|x| sig_tail(x, name)), is.as_deref().and_then(|x| sig_tail(x, name))), (Some(a), Some(b)) if a == b);
                        if !same {
                            break;
                        }
                        pairs.push((m, *im));
                    }
                    if pairs.len() != wanted.len() {
                        continue;
                    }
                    self.structural_edge((t, i), EdgeKind::Implements, t);
                    for (m, im) in pairs {
                        self.structural_edge((m, im), EdgeKind::Implements, m);
                    }
                }
            }
        }
    }
}
