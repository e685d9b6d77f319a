//! `#[cfg(…)]` evaluated for the configuration kivgraph compiles Rust for (SPEC 14.2): the
//! host target `x86_64-unknown-linux-gnu` with `debug_assertions`, in both the library and the
//! test build of a crate (`test` is set in one and not the other, so a predicate that depends
//! on it is undecided), with the features the file's package enables by default (when the
//! package is not known, a predicate that needs a feature is undecided too). An item whose
//! `cfg` is false is not compiled; one whose `cfg` is undecided is kept.

use crate::lang::FieldExt;
use crate::lang::KindExt;
use tree_sitter::Node;

use super::Walker;
use crate::lang::kids;

/// Names set in the configuration; every other bare name is unset, but `test`, which is
/// undecided.
const SET_NAMES: &[&str] = &["debug_assertions", "unix", "overflow_checks"];

/// `key = "value"` pairs of the configuration; a key listed here with another value is false.
const SET_VALUES: &[(&str, &[&str])] = &[
    ("target_os", &["linux"]),
    ("target_family", &["unix"]),
    ("target_arch", &["x86_64"]),
    ("target_pointer_width", &["64"]),
    ("target_endian", &["little"]),
    ("target_env", &["gnu"]),
    ("target_vendor", &["unknown"]),
    ("target_has_atomic", &["8", "16", "32", "64", "ptr"]),
    // The baseline features of x86_64.
    ("target_feature", &["fxsr", "sse", "sse2"]),
    ("panic", &["unwind"]),
];

impl Walker<'_> {
    /// The named children of `parent`, each with whether an attribute just before it
    /// (`#[cfg(…)]`, comments between) is false in the configuration. One pass over the
    /// children: asking each child's previous siblings in turn was quadratic in tree-sitter
    /// (a sibling is found from the parent's first child).
    pub(super) fn kids_cfg<'t>(&self, parent: Node<'t>) -> Vec<(Node<'t>, bool)> {
        let mut out = Vec::new();
        let mut off = false;
        let mut c = parent.walk();
        for k in parent.children(&mut c) {
            if k.is_named() {
                out.push((k, off));
            }
            match k.kind_name() {
                "attribute_item" => off |= self.cfg_attr_value(k) == Some(false),
                "line_comment" | "block_comment" => {}
                _ => off = false,
            }
        }
        out
    }

    /// Whether an inner attribute of `body` (`#![cfg(…)]`) is false: the whole module is off.
    pub(super) fn inner_cfg_off(&self, body: Node) -> bool {
        kids(body)
            .into_iter()
            .filter(|k| k.kind_name() == "inner_attribute_item")
            .any(|k| self.cfg_attr_value(k) == Some(false))
    }

    /// The value of `#[cfg(p)]` (or `#![cfg(p)]`); `None` for another attribute or an
    /// undecided predicate.
    fn cfg_attr_value(&self, item: Node) -> Option<bool> {
        let attr = kids(item)
            .into_iter()
            .find(|k| k.kind_name() == "attribute")?;
        let head = kids(attr).into_iter().next()?;
        if self.t(head) != "cfg" {
            return None;
        }
        let args = attr.field("arguments")?;
        let preds = self.predicates(args);
        match preds.as_slice() {
            [p] => *p,
            _ => None,
        }
    }

    /// The predicates of a token tree `( p, p, … )`, each evaluated.
    fn predicates(&self, tt: Node) -> Vec<Option<bool>> {
        // Every child, the anonymous `=` and `,` included.
        let mut c = tt.walk();
        let toks: Vec<Node> = tt
            .children(&mut c)
            .filter(|k| !matches!(k.kind_name(), "(" | ")" | "line_comment" | "block_comment"))
            .collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i];
            if t.kind_name() == "," {
                i += 1;
                continue;
            }
            if t.kind_name() != "identifier" {
                out.push(None);
                i += 1;
                continue;
            }
            let name = self.t(t);
            let next = toks.get(i + 1);
            match next.map(|n| n.kind_name()) {
                Some("token_tree") => {
                    let inner = self.predicates(*next.unwrap());
                    out.push(match name {
                        "all" => all(&inner),
                        "any" => any(&inner),
                        "not" if inner.len() == 1 => inner[0].map(|b| !b),
                        _ => None,
                    });
                    i += 2;
                }
                Some("=") => {
                    let value = toks
                        .get(i + 2)
                        .filter(|v| v.kind_name() == "string_literal")
                        .map(|v| self.t(*v).trim_matches('"').to_string());
                    out.push(value.and_then(|v| match name {
                        "feature" => self.features.map(|f| f.contains(&v)),
                        _ => key_value(name, &v),
                    }));
                    i += 3;
                }
                _ => {
                    out.push((name != "test").then(|| SET_NAMES.contains(&name)));
                    i += 1;
                }
            }
        }
        out
    }
}

fn key_value(key: &str, value: &str) -> Option<bool> {
    SET_VALUES
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, vs)| vs.contains(&value))
}

fn all(ps: &[Option<bool>]) -> Option<bool> {
    if ps.contains(&Some(false)) {
        Some(false)
    } else if ps.iter().all(|p| *p == Some(true)) {
        Some(true)
    } else {
        None
    }
}

fn any(ps: &[Option<bool>]) -> Option<bool> {
    if ps.contains(&Some(true)) {
        Some(true)
    } else if ps.iter().all(|p| *p == Some(false)) {
        Some(false)
    } else {
        None
    }
}
