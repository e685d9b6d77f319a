//! Emission: the edges and unresolved records of imports and references (SPEC 12.3, 12.4),
//! through [`crate::emit`].

use kivgraph_format::{Confidence, EdgeKind, Language, Provenance, SymbolKind};

use super::{Bound, Hit, Receiver, Resolver, Target};
use crate::emit::reason::{NAME_NOT_RESOLVED, RECEIVER_TYPE_UNKNOWN};
use crate::emit::{self, NameOnly, ReceiverWords, Request, Site};
use crate::facts::SymbolId;
use crate::lang::py::extract::{Expr, ImportKind, NameRes, RefTarget, Use};
use crate::lang::shared::resolve::{name_only_candidates, site_in};

/// Members every object or class has: missing from a declaration, they are not a failure.
const OBJECT_MEMBERS: &[&str] = &[
    "__class__",
    "__dict__",
    "__doc__",
    "__module__",
    "__name__",
    "__qualname__",
    "__init__",
    "__new__",
    "__repr__",
    "__str__",
    "__eq__",
    "__ne__",
    "__hash__",
    "__getattribute__",
    "__setattr__",
    "__delattr__",
    "__dir__",
    "__init_subclass__",
    "__subclasshook__",
    "mro",
    "__mro__",
    "__bases__",
    "__subclasses__",
    "__annotations__",
    "__slots__",
    "__format__",
    "__reduce__",
    "__reduce_ex__",
    "__sizeof__",
    "__weakref__",
];

/// How Python words a `RECEIVER_TYPE_UNKNOWN` record.
const RECEIVER_WORDS: ReceiverWords = ReceiverWords {
    unwritten: "the receiver's type is not written",
    none: "no visible class declares the attribute",
    shared: "visible class members share the name",
};

/// Where and how a reference occurs: its enclosing declaration (`None` at module level), its
/// use and its position.
#[derive(Clone, Copy, Debug)]
pub(super) struct Occurrence {
    pub from: Option<usize>,
    pub usage: Use,
    pub line: u32,
    pub column: u32,
}

/// How an edge was bound: its provenance, and its confidence when it is not the exact one
/// ([`emit::exact`]) or the structural one a class's base gets.
type Binding = (Provenance, Option<Confidence>);

/// A member matched by name only.
const NAME_ONLY: Binding = (Provenance::PyNameOnly, Some(Confidence::Candidate));

impl Resolver<'_> {
    /// Where in module `m` something occurs.
    pub(super) fn site(&self, m: usize, line: u32, column: u32) -> Site {
        let md = &self.mods[m];
        site_in((md.repo, md.file, Language::Python), (line, column))
    }

    /// Records an unresolved reference of module `m`, owned by the occurrence's source.
    fn unresolved(&mut self, m: usize, at: Occurrence, reason: &str, request: Request) {
        let site = self.site(m, at.line, at.column);
        let source = self.source_of(m, at.from);
        emit::unresolved(self.facts, site, reason, request, Some(source));
    }

    /// The package name of module `m` in unresolved records: its dotted name, else its path.
    fn own_name(&self, m: usize) -> String {
        self.mods[m]
            .dotted
            .clone()
            .unwrap_or_else(|| self.mods[m].path.clone())
    }

    /// The unresolved records of imports that reach no module, and the package edges of those
    /// that reach one.
    pub(super) fn import_facts(&mut self, m: usize) {
        self.eval_steps.set(0);
        for i in 0..self.mods[m].py.imports.len() {
            let im = self.mods[m].py.imports[i].clone();
            if let Target::Missing(reason, package) = self.mods[m].targets[i].clone() {
                let symbol = match &im.kind {
                    ImportKind::From(n) => Some(n.clone()),
                    _ => None,
                };
                let at = Occurrence {
                    from: None,
                    usage: Use::Import,
                    line: im.module_line,
                    column: im.module_column,
                };
                let request = Request {
                    package,
                    symbol,
                    detail: Some(format!("import of \"{}\"", im.module)),
                };
                self.unresolved(m, at, reason, request);
            }
        }
        let src_pkg = self.file_package[m];
        let deps = self.imported[m].clone();
        for t in deps {
            let tgt = self.file_package[t];
            let same = self.mods[m].repo == self.mods[t].repo;
            emit::package_edge(
                self.facts,
                (src_pkg, tgt),
                same,
                Provenance::PyImportDependency,
            );
        }
    }

    fn exact(&self, from: usize, to: usize) -> Confidence {
        emit::exact(self.mods[from].repo == self.mods[to].repo)
    }

    fn source_of(&self, m: usize, from: Option<usize>) -> SymbolId {
        match from {
            Some(d) => self.mods[m].syms[d],
            None => self.mods[m].module_sym,
        }
    }

    fn edge_kind(usage: Use, target: SymbolKind) -> EdgeKind {
        match usage {
            Use::Import => EdgeKind::ImportsSymbol,
            Use::Extends => EdgeKind::Extends,
            Use::Type => EdgeKind::TypeUses,
            Use::Call => EdgeKind::CallsDirect,
            Use::Argument
                if matches!(
                    target,
                    SymbolKind::Function | SymbolKind::Method | SymbolKind::StaticMethod
                ) =>
            {
                EdgeKind::PassesAsCallback
            }
            Use::Argument | Use::Value | Use::Decorator => EdgeKind::References,
        }
    }

    /// An edge to declaration `td` of module `tm`.
    fn edge(&mut self, m: usize, at: Occurrence, (tm, td): (usize, usize), binding: Binding) {
        let target = self.mods[tm].syms[td];
        let kind = self.mods[tm].py.decls[td].kind;
        self.push_edge(m, at, (target, kind, tm), binding);
    }

    /// An edge to the module symbol of module `t`, bound through an import.
    fn module_edge(&mut self, m: usize, at: Occurrence, t: usize) {
        let target = self.mods[t].module_sym;
        self.push_edge(
            m,
            at,
            (target, SymbolKind::Module, t),
            (Provenance::PyImport, None),
        );
    }

    /// An edge to `target`, of kind `target_kind`, in module `tm`: a class's base bound
    /// exactly is structural, any other edge exact unless `binding` says otherwise.
    fn push_edge(
        &mut self,
        m: usize,
        at: Occurrence,
        (target, target_kind, tm): (SymbolId, SymbolKind, usize),
        (provenance, confidence): Binding,
    ) {
        let structural = at.usage == Use::Extends
            && confidence.is_none()
            && at
                .from
                .is_some_and(|d| self.mods[m].py.decls[d].kind == SymbolKind::Class);
        let (confidence, provenance) = if structural {
            (Confidence::StructuralCertain, Provenance::PyDeclaration)
        } else {
            (confidence.unwrap_or_else(|| self.exact(m, tm)), provenance)
        };
        let ends = (self.source_of(m, at.from), target);
        let site = self.site(m, at.line, at.column);
        let kind = Self::edge_kind(at.usage, target_kind);
        emit::edge(self.facts, ends, kind, (confidence, provenance), site);
    }

    pub(super) fn references(&mut self, m: usize) {
        let refs = self.refs;
        for r in &refs[m] {
            self.eval_steps.set(0);
            let at = Occurrence {
                from: r.from,
                usage: r.usage,
                line: r.line,
                column: r.column,
            };
            match &r.target {
                RefTarget::Name(res, name) => self.name(m, at, res, name),
                RefTarget::Imported(i) => self.imported(m, at, *i),
                RefTarget::ImportedModule(i) => {
                    if let Target::Module(t) = self.mods[m].targets[*i] {
                        let at = Occurrence {
                            usage: Use::Import,
                            ..at
                        };
                        self.module_edge(m, at, t);
                    }
                }
                RefTarget::Member(base, name) => self.member(m, at, base, name),
            }
        }
    }

    /// A name bound by phase 1 (a declaration of the file, an import, or no scope).
    fn name(&mut self, m: usize, at: Occurrence, res: &NameRes, name: &str) {
        let provenance = match res {
            NameRes::Import(_) => Provenance::PyImport,
            NameRes::Unbound(_) => Provenance::PyImport,
            _ => Provenance::PyScope,
        };
        match self.bind_res(m, res, 0) {
            Bound::Decl(tm, td) => self.edge(m, at, (tm, td), (provenance, None)),
            // `try: import ssl` / `except ImportError: ssl = None`: the module's own variable
            // of that name is the graph's declaration of what the name denotes.
            Bound::External | Bound::Missing
                if let NameRes::Import(i) = res
                    && self.mods[m].py.imports[*i].guarded
                    && let Some(d) =
                        self.own_declaration(m, &self.mods[m].py.imports[*i].local) =>
            {
                self.edge(m, at, (m, d), (Provenance::PyScope, None))
            }
            // The same with the module compiled: the name denotes the module, and where the
            // import failed the module's own variable, its alternative (a candidate).
            Bound::Module(_) | Bound::Namespace(..)
                if let NameRes::Import(i) = res
                    && self.mods[m].py.imports[*i].guarded
                    && let Some(d) =
                        self.own_declaration(m, &self.mods[m].py.imports[*i].local) =>
            {
                self.edge(
                    m,
                    at,
                    (m, d),
                    (Provenance::PyScope, Some(Confidence::Candidate)),
                )
            }
            Bound::Missing => match res {
                NameRes::Unbound(_) => {
                    let request = Request {
                        package: self.own_name(m),
                        symbol: Some(name.to_string()),
                        detail: Some("no scope, import or builtin declares the name".into()),
                    };
                    self.unresolved(m, at, NAME_NOT_RESOLVED, request);
                }
                // Imported from a compiled module that does not provide it: every use is
                // recorded, not only the import.
                NameRes::Import(i) => {
                    let im = &self.mods[m].py.imports[*i];
                    if let (ImportKind::From(n), Target::Module(t)) =
                        (&im.kind, &self.mods[m].targets[*i])
                    {
                        let request = Request {
                            package: self.own_name(*t),
                            symbol: Some(n.clone()),
                            detail: Some(format!(
                                "imported from \"{}\", which has no attribute or submodule of that name",
                                im.module
                            )),
                        };
                        self.unresolved(m, at, NAME_NOT_RESOLVED, request);
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }

    /// A module-level variable, function or class of module `m` named `name`.
    fn own_declaration(&self, m: usize, name: &str) -> Option<usize> {
        self.mods[m].py.decls.iter().position(|d| {
            d.parent.is_none()
                && d.name == name
                && matches!(
                    d.kind,
                    SymbolKind::Variable | SymbolKind::Function | SymbolKind::Class
                )
        })
    }

    /// The imported name of import `i` (`x` of `from m import x`).
    fn imported(&mut self, m: usize, at: Occurrence, i: usize) {
        let at = Occurrence {
            usage: Use::Import,
            ..at
        };
        match self.import_binding(m, i, 0) {
            Bound::Decl(tm, td) => self.edge(m, at, (tm, td), (Provenance::PyImport, None)),
            Bound::Module(t) => self.module_edge(m, at, t),
            Bound::Missing => {
                let im = &self.mods[m].py.imports[i];
                if let ImportKind::From(n) = &im.kind
                    && let Target::Module(t) = self.mods[m].targets[i]
                {
                    let request = Request {
                        package: self.own_name(t),
                        symbol: Some(n.clone()),
                        detail: Some(format!(
                            "module \"{}\" has no attribute or submodule of that name",
                            im.module
                        )),
                    };
                    // Owned by the module symbol, wherever the import is.
                    let at = Occurrence { from: None, ..at };
                    self.unresolved(m, at, NAME_NOT_RESOLVED, request);
                }
            }
            _ => {}
        }
    }

    /// An attribute `base.name`.
    fn member(&mut self, m: usize, at: Occurrence, base: &Expr, name: &str) {
        let recv = self.eval(m, base, 0);
        match self.members_named(&recv, name, 0) {
            Hit::Decls(v, exact) => {
                let binding = if exact {
                    (Provenance::PyReceiverTyped, None)
                } else {
                    NAME_ONLY
                };
                for x in v {
                    self.edge(m, at, x, binding);
                }
            }
            Hit::Bound(Bound::Decl(a, b)) => self.edge(m, at, (a, b), (Provenance::PyImport, None)),
            Hit::Bound(Bound::Module(t)) => self.module_edge(m, at, t),
            Hit::Bound(Bound::Missing) => {
                let owner = match &recv {
                    Receiver::Module(t) => self.own_name(*t),
                    Receiver::Namespace(_, d) => d.clone(),
                    _ => return,
                };
                let request = Request {
                    package: owner,
                    symbol: Some(name.to_string()),
                    detail: Some("the module has no attribute or submodule of that name".into()),
                };
                self.unresolved(m, at, NAME_NOT_RESOLVED, request);
            }
            Hit::Bound(_) | Hit::External | Hit::NotFound { closed: false } => {}
            Hit::NotFound { closed: true } => {
                if OBJECT_MEMBERS.contains(&name) {
                    return;
                }
                // Narrowing (`isinstance`) may have made the receiver a subclass that declares
                // the attribute: its candidates, by name.
                if self.name_only(m, at, name, false) {
                    return;
                }
                let owner = match &recv {
                    Receiver::Members(tm, td) | Receiver::SuperOf(tm, td) => {
                        self.mods[*tm].py.decls[*td].qn.clone()
                    }
                    _ => "the receiver's type".into(),
                };
                let request = Request {
                    package: self.own_name(m),
                    symbol: Some(name.to_string()),
                    detail: Some(format!("{owner} and its bases declare no {name}")),
                };
                self.unresolved(m, at, NAME_NOT_RESOLVED, request);
            }
            Hit::Unknown => {
                self.name_only(m, at, name, true);
            }
        }
    }

    /// Candidates for attribute `name` by name only: every class member of that name in the
    /// module and the modules it imports, when there are 1 to 8. Returns whether there were;
    /// with `record`, none (or too many) is recorded as `RECEIVER_TYPE_UNKNOWN`.
    fn name_only(&mut self, m: usize, at: Occurrence, name: &str, record: bool) -> bool {
        let cands = name_only_candidates(&self.member_index, &self.imported, m, name);
        match emit::name_only(cands) {
            NameOnly::Candidates(cands) => {
                for c in cands {
                    self.edge(m, at, c, NAME_ONLY);
                }
                true
            }
            NameOnly::Unresolved { shared } => {
                if record {
                    let request = Request {
                        package: self.own_name(m),
                        symbol: Some(name.to_string()),
                        detail: Some(RECEIVER_WORDS.detail(shared)),
                    };
                    self.unresolved(m, at, RECEIVER_TYPE_UNKNOWN, request);
                }
                false
            }
        }
    }
}
