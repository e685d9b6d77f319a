//! The binding of each reference phase 1 recorded: identifiers through the package scope, dot
//! imports and the universe; selectors through imports and package-level operands; members
//! through written receiver types, or by name among the visible packages' members when the
//! receiver's type is unknown (`CANDIDATE`, at most [`crate::emit::MAX_CANDIDATES`]); keys of
//! keyed literals through the literal's type.

use kivgraph_format::{Provenance, SymbolKind};

use super::emission::external_reason;
use super::scopes::{FileScope, Imported};
use super::types::{KnownType, Resolution};
use super::{Resolver, UNIVERSE};
use crate::emit::{self, NameOnly, ReceiverWords, reason};
use crate::facts::SymbolId;
use crate::lang::go::extract::{self, Target, Ty, Use};

/// How Go words a `RECEIVER_TYPE_UNKNOWN` record.
const RECEIVER_WORDS: ReceiverWords = ReceiverWords {
    unwritten: "the receiver's type is not written in the code",
    none: "no visible type declares this member",
    shared: "visible members share the name",
};

impl Resolver<'_> {
    /// Binds one reference phase 1 recorded.
    pub(super) fn resolve(&mut self, scope: &FileScope, r: &extract::Ref) {
        let pkg_path = self.pkgs[scope.pi].import_path.clone();
        match &r.target {
            Target::Ident(name) => {
                if let Some(syms) = self.pkgs[scope.pi].scope.get(name).cloned() {
                    return self.bind_scope(scope, r, &syms, Provenance::GoScope);
                }
                if let Some(syms) = self.dot_lookup(scope, name) {
                    return self.bind_scope(scope, r, &syms, Provenance::GoImportSelector);
                }
                if UNIVERSE.contains(&name.as_str()) {
                    return;
                }
                if let Some(Imported::External(path)) = scope
                    .dot
                    .iter()
                    .find(|d| matches!(d, Imported::External(_)))
                {
                    let path = path.clone();
                    return self.unresolved(
                        scope,
                        r,
                        external_reason(&path),
                        path,
                        name.clone(),
                        None,
                    );
                }
                self.unresolved(
                    scope,
                    r,
                    reason::DECLARATION_NOT_FOUND,
                    pkg_path,
                    name.clone(),
                    Some("no declaration in the package's built files".into()),
                );
            }
            Target::Selector {
                operand,
                name,
                operand_at,
            } => {
                // A package-level value or type of this package: `v.M`, `T.M`.
                if let Some(syms) = self.pkgs[scope.pi].scope.get(operand).cloned() {
                    let operand = (operand.as_str(), *operand_at);
                    return self.operand_member(
                        scope,
                        r,
                        operand,
                        &syms,
                        Provenance::GoScope,
                        name,
                    );
                }
                match scope.imports.get(operand).cloned() {
                    Some(Imported::Graph(p)) => {
                        let syms = self.pkgs[p].scope.get(name).cloned().unwrap_or_default();
                        if syms.is_empty() {
                            let path = self.pkgs[p].import_path.clone();
                            self.unresolved(
                                scope,
                                r,
                                reason::DECLARATION_NOT_FOUND,
                                path,
                                name.clone(),
                                Some("no declaration in the package's built files".into()),
                            );
                        } else {
                            self.bind_scope(scope, r, &syms, Provenance::GoImportSelector);
                        }
                    }
                    Some(Imported::External(path)) => {
                        self.unresolved(scope, r, external_reason(&path), path, name.clone(), None);
                    }
                    None => {
                        // A dot-imported value or type.
                        if let Some(syms) = self.dot_lookup(scope, operand) {
                            let operand = (operand.as_str(), *operand_at);
                            let provenance = Provenance::GoImportSelector;
                            return self.operand_member(scope, r, operand, &syms, provenance, name);
                        }
                        if UNIVERSE.contains(&operand.as_str()) {
                            return;
                        }
                        self.unresolved(
                            scope,
                            r,
                            reason::DECLARATION_NOT_FOUND,
                            pkg_path,
                            operand.clone(),
                            Some(format!(
                                "{operand}.{name}: the operand is declared nowhere the file can see"
                            )),
                        );
                    }
                }
            }
            Target::Member { recv, name } => self.member(scope, r, recv.as_ref(), name),
            Target::FieldKey { ty, name } => match self.resolve_ty(scope, ty, 0) {
                Resolution::Type(KnownType::Named(t)) => {
                    let t = self.underlying_named(t);
                    if !self.decl(t).is_struct {
                        // A map or slice type: the key is an expression, not a field name.
                        let ident = extract::Ref {
                            target: Target::Ident(name.clone()),
                            ..r.clone()
                        };
                        return self.resolve(scope, &ident);
                    }
                    match self.direct_members(t).iter().find(|(n, s)| {
                        n == name && self.facts.symbols[*s].kind == SymbolKind::Field
                    }) {
                        Some(&(_, f)) => self.bind(scope, r, f, true, Provenance::GoReceiverTyped),
                        None => self.unresolved(
                            scope,
                            r,
                            reason::DECLARATION_NOT_FOUND,
                            pkg_path,
                            name.clone(),
                            Some("no such field on the literal's type".into()),
                        ),
                    }
                }
                Resolution::External(path) => {
                    self.unresolved(scope, r, external_reason(&path), path, name.clone(), None)
                }
                // Not a named type we can see (a container of a builtin, an unresolved name):
                // the key is a field name of an unknown struct or an expression; no guess.
                _ => {}
            },
        }
    }

    /// `x.name` where `x` has type `recv`.
    pub(super) fn member(
        &mut self,
        scope: &FileScope,
        r: &extract::Ref,
        recv: Option<&Ty>,
        name: &str,
    ) {
        let resolution = match recv {
            Some(t) => self.resolve_ty(scope, t, 0),
            None => Resolution::Unknown,
        };
        match resolution {
            Resolution::Type(KnownType::Named(t)) => {
                if let Some(m) = self.lookup_member(t, name, 0) {
                    return self.bind(scope, r, m, true, Provenance::GoReceiverTyped);
                }
            }
            Resolution::External(path) => {
                return self.unresolved(
                    scope,
                    r,
                    external_reason(&path),
                    path,
                    name.to_string(),
                    None,
                );
            }
            _ => {}
        }
        // The receiver's type is not known from written types: same-named members of the packages
        // this file can see are candidates, never exact.
        let mut visible: Vec<usize> = vec![scope.pi];
        visible.extend(
            scope
                .imports
                .values()
                .chain(scope.dot.iter())
                .filter_map(|i| match i {
                    Imported::Graph(p) => Some(*p),
                    Imported::External(_) => None,
                }),
        );
        visible.sort_unstable();
        visible.dedup();
        let mut cands: Vec<SymbolId> = Vec::new();
        for p in visible {
            if let Some(list) = self.members_by_name.get(&(p, name.to_string())) {
                cands.extend(list);
            }
        }
        cands.sort_unstable();
        cands.dedup();
        match emit::name_only(cands) {
            NameOnly::Candidates(cands) => {
                for c in cands {
                    self.bind(scope, r, c, false, Provenance::GoNameOnly);
                }
            }
            NameOnly::Unresolved { shared } => {
                let pkg = self.pkgs[scope.pi].import_path.clone();
                self.unresolved(
                    scope,
                    r,
                    reason::RECEIVER_TYPE_UNKNOWN,
                    pkg,
                    name.to_string(),
                    Some(RECEIVER_WORDS.detail(shared)),
                );
            }
        }
    }

    /// A name declared by a dot-imported compiled package: the first that declares it.
    fn dot_lookup(&self, scope: &FileScope, name: &str) -> Option<Vec<SymbolId>> {
        scope.dot.iter().find_map(|d| match d {
            Imported::Graph(p) => self.pkgs[*p].scope.get(name).cloned(),
            Imported::External(_) => None,
        })
    }

    /// `operand.name` where `operand` (written at `.1`) is a package-level value or type
    /// (`syms`) found with `provenance`: the operand is recorded as a value use, then `name` is
    /// bound as its member.
    fn operand_member(
        &mut self,
        scope: &FileScope,
        r: &extract::Ref,
        (operand, (line, column)): (&str, (u32, u32)),
        syms: &[SymbolId],
        provenance: Provenance,
        name: &str,
    ) {
        let operand_ref = extract::Ref {
            target: Target::Ident(operand.to_string()),
            usage: Use::Value,
            line,
            column,
            ..r.clone()
        };
        self.bind_scope(scope, &operand_ref, syms, provenance);
        let (qual, name_of_operand) = (None, operand.to_string());
        let recv = if syms.len() == 1 && self.is_type(syms[0]) {
            Ty::Named {
                qual,
                name: name_of_operand,
            }
        } else {
            Ty::Value {
                qual,
                name: name_of_operand,
            }
        };
        self.member(scope, r, Some(&recv), name)
    }
}
