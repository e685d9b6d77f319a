//! Token trees read as code: the branches of `cfg_if!` as items, and the arguments of a macro
//! invocation or the expansion of a `macro_rules!` rule as expressions or statements.

use crate::lang::KindExt;
use tree_sitter::Node;

use super::{Depth, Ns, RefKind, Scope, Walker, What, field, parser};
use crate::lang::kids;

impl Walker<'_> {
    /// `cfg_if! { if #[cfg(…)] { items } else { items } }`: the items of every branch, each
    /// brace group re-parsed as a module body (`#[cfg]` is not evaluated).
    pub(super) fn cfg_if_items(&mut self, n: Node) {
        let Some(tt) = kids(n).into_iter().find(|k| k.kind_name() == "token_tree") else {
            return;
        };
        for g in kids(tt) {
            if g.kind_name() != "token_tree"
                || !self.t(g).starts_with('{')
                || g.end_byte() < g.start_byte() + 2
            {
                continue;
            }
            let inner = &self.src[g.start_byte() + 1..g.end_byte() - 1];
            let Some(mut parser) = parser() else {
                return;
            };
            let snippet = inner.to_string();
            let Some(tree) = parser.parse(&snippet, None) else {
                continue;
            };
            let root = tree.root_node();
            if root.has_error() {
                continue;
            }
            let in_macro_def = self.in_macro_def;
            self.reparsed(g, &snippet, 0, in_macro_def, |w| {
                w.deeper(|w| w.items(root))
            });
        }
    }

    /// The token tree of a macro invocation or of a `macro_rules!` rule's expansion, re-parsed
    /// as expressions (`[a, b]`) or as a block's statements; only a parse without syntax errors
    /// is read.
    pub(super) fn macro_tokens(&mut self, tt: Node, body: bool) {
        if self.deep() || tt.end_byte() < tt.start_byte() + 2 {
            return;
        }
        let inner = &self.src[tt.start_byte() + 1..tt.end_byte() - 1];
        if inner.trim().is_empty() {
            return;
        }
        let wrappers: [(&str, &str); 2] = if body {
            [("fn f(){", "\n}"), ("fn f(){[", "\n];}")]
        } else {
            [("fn f(){[", "\n];}"), ("fn f(){", "\n}")]
        };
        let Some(mut parser) = parser() else {
            return;
        };
        for (pre, post) in wrappers {
            let snippet = format!("{pre}{inner}{post}");
            let Some(tree) = parser.parse(&snippet, None) else {
                continue;
            };
            let root = tree.root_node();
            if root.has_error() {
                continue;
            }
            let Some(body_node) = kids(root).into_iter().next().and_then(|f| field(f, "body"))
            else {
                continue;
            };
            let in_macro_def = self.in_macro_def || body;
            self.reparsed(tt, &snippet, pre.len(), in_macro_def, |w| {
                w.scopes.push(Scope::default());
                for k in kids(body_node) {
                    if k.kind_name().ends_with("_item")
                        || k.kind_name() == "use_declaration"
                        || k.kind_name() == "macro_definition"
                    {
                        continue;
                    }
                    w.deeper(|w| w.stmt(k));
                }
                w.scopes.pop();
            });
            return;
        }
        // Arguments that are not expressions (`test!{ min: Bound::Unbounded }`): the paths
        // among their tokens, as candidates (the macro's expansion is what gives them meaning).
        if !body && self.in_opaque_macro_args {
            self.token_paths(tt);
        }
    }

    /// The paths (`a`, `a::B::c`) written among the tokens of `tt`, nested groups included,
    /// each a reference whose bindings are candidates; a name binding nothing is not recorded.
    fn token_paths(&mut self, tt: Node) {
        if self.deep() {
            return;
        }
        let mut c = tt.walk();
        let toks: Vec<Node> = tt.children(&mut c).collect();
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i];
            match t.kind_name() {
                "token_tree" => {
                    self.deeper(|w| w.token_paths(t));
                    i += 1;
                }
                "identifier" => {
                    // `a::b::c`, not a field name before `:` nor a macro name before `!`.
                    let mut segs = vec![self.t(t).to_string()];
                    let mut last = t;
                    let mut j = i + 1;
                    while j + 1 < toks.len()
                        && toks[j].kind_name() == "::"
                        && toks[j + 1].kind_name() == "identifier"
                    {
                        segs.push(self.t(toks[j + 1]).to_string());
                        last = toks[j + 1];
                        j += 2;
                    }
                    let next = toks.get(j).map(|n| n.kind_name());
                    if !matches!(next, Some(":" | "!")) {
                        let at = self.at(last);
                        self.push_ref(RefKind::Ref, What::Path(segs, Ns::Value), at);
                        if j > i + 1 {
                            // The prefix's last segment, for the type it may name.
                            let prefix = self.at(toks[j - 3]);
                            if let Some(r) = self.f.refs.last_mut() {
                                r.prefix_pos = Some(prefix);
                            }
                        }
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }

    /// Walks `src`, text re-parsed from the token tree `tt` of this file with `wrapper` bytes
    /// put before it, with `walk`, as if it stood in the token tree's place: what it declares
    /// and references is this file's.
    pub(super) fn reparsed(
        &mut self,
        tt: Node,
        src: &str,
        wrapper: usize,
        in_macro_def: bool,
        walk: impl FnOnce(&mut Walker<'_>),
    ) {
        let (line, column) = self.at(tt);
        let mut sub = Walker {
            src,
            f: std::mem::take(&mut self.f),
            scopes: std::mem::take(&mut self.scopes),
            module: self.module,
            source: self.source,
            selfc: self.selfc,
            depth: Depth::at(self.depth.get()),
            too_deep: false,
            shift: Some((line, column + 1, wrapper as u32)),
            byte_base: self.file_byte(tt.start_byte() + 1),
            in_macro_def,
            in_opaque_macro_args: self.in_opaque_macro_args,
            features: self.features,
        };
        walk(&mut sub);
        self.f = sub.f;
        self.scopes = sub.scopes;
        self.too_deep |= sub.too_deep;
    }
}
