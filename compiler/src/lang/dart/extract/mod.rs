//! Phase 1 of Dart: one file at a time, in parallel. Reads the directives, declares the file's
//! top-level declarations and members, and walks every body with Dart's lexical scopes (blocks,
//! parameters, initializing formals, `catch`, `for`, closures, pattern variables). A name bound
//! to a local gives nothing; every other name is left to phase 2 with its class context.

use crate::hash::HashMap;
use crate::lang::KindExt;

use kivgraph_format::SymbolKind;
use tree_sitter::Node;

use crate::lang::shared::extract::{FileRecord, extract_file};
use crate::lang::{Span, collapse, kids, pos, text};
use syntax::{
    ClassContext, CoreName, DartFile, Decl, Directive, DirectiveKind, Expr, Local, Ref, SuperKind,
    Target, TypeRef, Use,
};

mod declare;
mod describe;
pub(super) mod syntax;
mod types;
mod walk;

/// Deeper syntax than this is not followed, and the file is `partial`.
const MAX_DEPTH: usize = 400;
/// Receiver descriptions keep at most this many levels.
const MAX_EXPR: usize = 24;

enum Binding {
    Local(usize),
    TypeParam,
}

struct Extractor<'s> {
    src: &'s str,
    file: DartFile,
    scopes: Vec<HashMap<String, Binding>>,
    /// The innermost enclosing declaration: the source of references.
    from: Option<usize>,
    ctx: ClassContext,
    depth: usize,
    /// The value a variable pattern directly inside an object pattern's field is bound to.
    pattern_value: Option<Expr>,
}

impl FileRecord for DartFile {
    fn has_error_mut(&mut self) -> &mut bool {
        &mut self.has_error
    }
}

/// Extracts one file.
pub fn extract(src: &str) -> DartFile {
    let language = tree_sitter_dart::LANGUAGE.into();
    extract_file(src, language, |root, file| {
        let mut x = Extractor {
            src,
            file,
            scopes: vec![HashMap::default()],
            from: None,
            ctx: None,
            depth: 0,
            pattern_value: None,
        };
        x.top_level(root, 0);
        x.file
    })
}

fn uri_text(n: Node, src: &str) -> String {
    let t = text(n, src).trim();
    let t = t.strip_prefix('r').unwrap_or(t);
    t.trim_matches(|c| c == '\'' || c == '"').to_string()
}

fn child_of_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    kids(n).into_iter().find(|k| k.kind_name() == kind)
}

fn has_token(n: Node, tok: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c)
        .any(|k| !k.is_named() && k.kind_name() == tok)
}

fn is_meta(k: &str) -> bool {
    matches!(
        k,
        "annotation" | "comment" | "documentation_comment" | "block_comment"
    )
}

/// The signature: from the first child that is not metadata or a comment up to `end`.
fn signature(decl: Node, end: usize, src: &str) -> Option<String> {
    let mut c = decl.walk();
    let start = decl
        .children(&mut c)
        .find(|k| !is_meta(k.kind_name()))
        .map_or(decl.start_byte(), |k| k.start_byte());
    if end <= start {
        return None;
    }
    let s = collapse(src[start..end].trim_end().trim_end_matches(';'));
    (!s.is_empty()).then_some(s)
}

/// Binary expressions whose operator is a member of the left operand's type, and whose value
/// is what that member returns.
const OPERATIONS: &[&str] = &[
    "additive_expression",
    "multiplicative_expression",
    "shift_expression",
    "bitwise_and_expression",
    "bitwise_or_expression",
    "bitwise_xor_expression",
];

const SIGNATURES: &[&str] = &[
    "function_signature",
    "getter_signature",
    "setter_signature",
    "operator_signature",
    "constructor_signature",
    "constant_constructor_signature",
    "factory_constructor_signature",
    "redirecting_factory_constructor_signature",
];

impl<'s> Extractor<'s> {
    fn t(&self, n: Node) -> &'s str {
        text(n, self.src)
    }

    fn deeper(&mut self) -> bool {
        if self.depth >= MAX_DEPTH {
            self.file.has_error = true;
            return false;
        }
        self.depth += 1;
        true
    }

    fn push_ref(&mut self, at: Node, usage: Use, target: Target) {
        self.file.refs.push(Ref::at(at, self.from, usage, target));
    }

    #[allow(clippy::too_many_arguments)]
    fn new_decl(
        &mut self,
        span_node: Node,
        name: &str,
        kind: SymbolKind,
        parent: Option<usize>,
        signature: Option<String>,
    ) -> usize {
        // A getter and a setter of one name are one property, whose range holds both.
        let same_name = match parent {
            Some(p) => self.file.decls[p].members.get(name),
            None => self.file.top.get(name),
        };
        if let Some(&d) = same_name
            && kind == SymbolKind::Property
            && self.file.decls[d].kind == SymbolKind::Property
        {
            self.file.decls[d].span.extend_to(Span::of(span_node));
            return d;
        }
        let id = self.file.decls.len();
        let qn = match parent {
            Some(p) => format!("{}.{}", self.file.decls[p].qn, name),
            None => name.to_string(),
        };
        self.file.decls.push(Decl {
            name: name.to_string(),
            qn,
            kind,
            parent,
            span: Span::of(span_node),
            at: pos(span_node),
            signature,
            ty: None,
            value: None,
            supers: Vec::new(),
            members: HashMap::default(),
            is_static: false,
            ctor: false,
            mixin: false,
            extension: false,
        });
        match parent {
            Some(p) => {
                self.file.decls[p]
                    .members
                    .entry(name.to_string())
                    .or_insert(id);
            }
            None => {
                self.file.top.entry(name.to_string()).or_insert(id);
            }
        }
        id
    }

    fn declare_local(&mut self, name: &str, local: Local) -> usize {
        let id = self.file.locals.len();
        self.file.locals.push(local);
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), Binding::Local(id));
        }
        id
    }

    fn lookup_type_param(&self, name: &str) -> bool {
        for s in self.scopes.iter().rev() {
            if let Some(b) = s.get(name) {
                return matches!(b, Binding::TypeParam);
            }
        }
        false
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn name_expr(&self, name: &str) -> Expr {
        match self.lookup(name) {
            Some(Binding::Local(i)) => Expr::Local(*i),
            Some(Binding::TypeParam) => Expr::Unknown,
            None => Expr::Name(name.to_string(), self.ctx),
        }
    }
}

fn is_pattern(k: &str) -> bool {
    matches!(
        k,
        "variable_pattern"
            | "list_pattern"
            | "map_pattern"
            | "record_pattern"
            | "object_pattern"
            | "constant_pattern"
            | "cast_pattern"
            | "null_check_pattern"
            | "null_assert_pattern"
            | "rest_pattern"
    )
}
