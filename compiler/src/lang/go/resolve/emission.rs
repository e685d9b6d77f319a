//! Emission: Go's edges and unresolved records, written through [`crate::emit`]: the source of
//! each reference (its enclosing declaration, or the file's module symbol), the edge kind its
//! use and target give, and the exact-or-candidate confidence of a binding.

use kivgraph_format::{Confidence, EdgeKind, Language, Provenance, SymbolKind};

use super::Resolver;
use super::scopes::FileScope;
use crate::emit::{self, Request, Site, reason};
use crate::facts::SymbolId;
use crate::lang::go::extract::{self, Use};
use crate::lang::go::project::is_stdlib;

impl Resolver<'_> {
    /// Where reference `r` of the file of `scope` occurs.
    fn site(&self, scope: &FileScope, r: &extract::Ref) -> Site {
        let f = &self.files[scope.fi];
        Site {
            repo: f.repo,
            file: f.file,
            line: r.line,
            column: r.column,
            language: Language::Go,
        }
    }

    /// Records a structural edge (`STRUCTURAL_CERTAIN`, `GO_DECLARATION`) whose occurrence is the
    /// start of `at`'s declaration.
    pub(super) fn structural_edge(
        &mut self,
        ends: (SymbolId, SymbolId),
        kind: EdgeKind,
        at: SymbolId,
    ) {
        let s = &self.facts.symbols[at];
        let site = Site {
            repo: s.repo,
            file: s.file,
            line: s.span.start_line,
            column: s.span.start_column,
            language: Language::Go,
        };
        let how = (Confidence::StructuralCertain, Provenance::GoDeclaration);
        emit::edge(&mut self.out, ends, kind, how, site);
    }

    /// The symbol a reference is made from: its enclosing declaration, or the file's module
    /// symbol (a placeholder until [`super::place`] makes it).
    fn source_of(&mut self, scope: &FileScope, r: &extract::Ref) -> SymbolId {
        if let Some(d) = r.source
            && let Some(&s) = self.sym_of.get(&(scope.fi, d))
        {
            return s;
        }
        // No declaration encloses the use: a synthetic module symbol for the file owns it.
        if !self.module_files.contains(&scope.fi) {
            self.module_files.push(scope.fi);
        }
        SymbolId(super::MODULE_PLACEHOLDER + scope.fi)
    }

    /// The edge kind of a use of `target`: by the use, then by what the target is.
    fn edge_kind(&self, usage: Use, target: SymbolId) -> EdgeKind {
        let kind = self.facts.symbols[target].kind;
        let is_type = matches!(kind, SymbolKind::Type | SymbolKind::Alias);
        let is_func = matches!(kind, SymbolKind::Func | SymbolKind::Method);
        match usage {
            Use::Type => EdgeKind::TypeUses,
            _ if is_type => EdgeKind::TypeUses,
            Use::Call if is_func => EdgeKind::CallsDirect,
            // A function named without being called is a value: where it goes says what it is.
            Use::Arg if is_func => EdgeKind::PassesAsCallback,
            Use::Assign if is_func => EdgeKind::AssignsFunction,
            Use::Return if is_func => EdgeKind::ReturnsFunction,
            _ => EdgeKind::References,
        }
    }

    /// Records reference `r` as unresolved: `symbol` of `package` was asked for.
    pub(super) fn unresolved(
        &mut self,
        scope: &FileScope,
        r: &extract::Ref,
        reason: &str,
        package: String,
        symbol: String,
        detail: Option<String>,
    ) {
        let source = self.source_of(scope, r);
        let site = self.site(scope, r);
        let request = Request {
            package,
            symbol: Some(symbol),
            detail,
        };
        emit::unresolved(&mut self.out, site, reason, request, Some(source));
    }

    /// Binds reference `r` to `target`: exactly (package-mapped when `target` is in another
    /// repository), or as a candidate.
    pub(super) fn bind(
        &mut self,
        scope: &FileScope,
        r: &extract::Ref,
        target: SymbolId,
        exact: bool,
        provenance: Provenance,
    ) {
        let source = self.source_of(scope, r);
        let kind = self.edge_kind(r.usage, target);
        // An exact binding into another repository goes through that repository's module path:
        // it is package-mapped.
        let confidence = if exact {
            emit::exact(self.facts.symbols[target].repo == self.files[scope.fi].repo)
        } else {
            Confidence::Candidate
        };
        let site = self.site(scope, r);
        let how = (confidence, provenance);
        emit::edge(&mut self.out, (source, target), kind, how, site);
    }

    /// A name in a package's scope: exactly one symbol binds exactly; several (broken code) are
    /// candidates.
    pub(super) fn bind_scope(
        &mut self,
        scope: &FileScope,
        r: &extract::Ref,
        syms: &[SymbolId],
        provenance: Provenance,
    ) {
        let exact = syms.len() == 1;
        for &s in syms {
            self.bind(scope, r, s, exact, provenance);
        }
    }
}

/// The reason of a reference into a package outside the graph.
pub(super) fn external_reason(path: &str) -> &'static str {
    if path == "C" {
        reason::CGO_NOT_INDEXED
    } else if is_stdlib(path) {
        reason::STDLIB_NOT_INDEXED
    } else {
        reason::MODULE_PROVIDER_NOT_FOUND
    }
}
