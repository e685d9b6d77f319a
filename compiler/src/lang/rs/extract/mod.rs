//! Phase 1 of Rust: one file's modules, items, impls, `use` trees and references, with locals
//! and generic parameters bound by the file's own scopes. Paths are left for phase 2.
//!
//! [`items`] reads declarations, [`members`] what they hold, [`types`] paths, types and `use`
//! trees, [`body`] blocks, statements and patterns, [`exprs`] expressions, and [`macros`] the
//! token trees of macros.

mod body;
mod cfg;
mod exprs;
mod items;
mod macros;
mod members;
mod types;

use crate::hash::HashMap;
use crate::lang::FieldExt;
use crate::lang::KindExt;

use kivgraph_format::SymbolKind;
use tree_sitter::{Node, Parser};

use super::Depth;
use crate::lang::{Extraction, Span, extract_with, pos, text};

/// Deeper nesting than this is not followed; the file is `partial`.
const MAX_DEPTH: usize = 300;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Ns {
    Type,
    Value,
    Macro,
}

/// A written type.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Ty {
    /// A path, with the generic arguments of its last segment.
    Path(Vec<String>, Vec<Ty>),
    /// `&T`, `&mut T`, `*const T`.
    Ref(Box<Ty>),
    /// `impl Trait` or `dyn Trait`: its written trait bounds.
    Bounds(Vec<Ty>),
    /// A generic parameter and its written trait bounds.
    Param(String, Vec<Ty>),
    Unknown,
}

/// What a receiver expression's type is made of.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Recv {
    Ty(Ty),
    /// The result of calling this path.
    CallRet(Vec<String>),
    /// The result of calling method `.1` on `.0`.
    Method(Box<Recv>, String),
    Field(Box<Recv>, String),
    /// A path used as a value: a unit struct, a const or static.
    Value(Vec<String>),
    /// `e?`: the first generic argument of `Result`/`Option`.
    Try(Box<Recv>),
    Unknown,
}

/// The `Self` of a place: an impl or a trait of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SelfCtx {
    Impl(usize),
    Trait(usize),
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ModuleDecl {
    pub parent: Option<usize>,
    pub name: String,
    /// `mod x { … }` (or a block), not `mod x;`.
    pub inline: bool,
    /// A block holding items: an anonymous scope, not a module.
    pub block: bool,
    pub path_attr: Option<String>,
    pub exported: bool,
    pub span: Span,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Item {
    pub module: usize,
    /// The item this one belongs to (struct of a field, enum of a variant, impl or trait of a
    /// fn, variant of a field).
    pub parent: Option<usize>,
    pub name: String,
    pub qn: String,
    pub kind: SymbolKind,
    pub span: Span,
    pub sig: Option<String>,
    pub exported: bool,
    /// Field type, fn return type, const/static type, alias target.
    pub ty: Option<Ty>,
    pub selfc: Option<SelfCtx>,
    /// A trait fn with a default body.
    pub default_body: bool,
    pub macro_export: bool,
    /// Declared inside a block: a local, not a symbol.
    pub local: bool,
    /// A tuple or unit struct or variant (also a value).
    pub value_too: bool,
    /// The supertraits of a trait.
    pub supers: Vec<Ty>,
    /// A fn with a `self` parameter.
    pub has_self: bool,
    /// The type parameters of a struct, enum or union, in order.
    pub generics: Vec<String>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ImplDecl {
    pub item: usize,
    pub self_ty: Ty,
    pub trait_: Option<Ty>,
    pub trait_pos: (u32, u32),
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Leaf {
    Name(Option<String>),
    Glob,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Import {
    pub module: usize,
    /// The full path (for a glob, the path of the module globbed).
    pub segs: Vec<String>,
    pub leaf: Leaf,
    /// Unrestricted `pub`.
    pub exported: bool,
    pub pos: (u32, u32),
    pub source: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RefKind {
    Call,
    Type,
    Extends,
    /// An argument: `PASSES_AS_CALLBACK` when it names a function.
    Arg,
    Ref,
    /// `#[derive(X)]`: the trait `X`, else the derive macro `X`.
    Derive,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum What {
    Path(Vec<String>, Ns),
    /// `<T as Tr>::name`.
    Qual(Ty, Ty, String),
    Member(Recv, String, bool),
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Reference {
    pub module: usize,
    pub source: Option<usize>,
    pub selfc: Option<SelfCtx>,
    pub kind: RefKind,
    pub what: What,
    pub pos: (u32, u32),
    /// For a path `a::B::c`, where its prefix's last segment (`B`) is written.
    pub prefix_pos: Option<(u32, u32)>,
    /// Written in the arguments of a macro whose expansion is not known: a binding of it is a
    /// candidate.
    pub opaque_macro_arg: bool,
    /// Inside a `macro_rules!` expansion: names other than `$crate::…` paths resolve where the
    /// macro is invoked, not here.
    pub in_macro_def: bool,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RsFile {
    pub has_error: bool,
    pub mods: Vec<ModuleDecl>,
    pub items: Vec<Item>,
    pub impls: Vec<ImplDecl>,
    pub uses: Vec<Import>,
    pub refs: Refs,
}

/// A file's references, kept encoded when read from the extraction cache and decoded on first
/// use: when the standard library's kept resolution is reused, its files' references are never
/// read (decoding them was about a tenth of the CPU of an edit's compile of the Rust pair).
/// Encoded, they are the postcard bytes of the list, and they encode the same either way.
#[derive(Clone, Debug)]
pub struct Refs {
    list: std::sync::OnceLock<Vec<Reference>>,
    encoded: Option<Vec<u8>>,
}

impl Default for Refs {
    fn default() -> Refs {
        Refs {
            list: std::sync::OnceLock::from(Vec::new()),
            encoded: None,
        }
    }
}

impl Refs {
    /// The references, decoded on the first call. Cache entries are checked against their
    /// digest before they are decoded, so the bytes are the ones this type wrote; bytes that
    /// would not decode (a fault of this type, never of the cache) give no references rather
    /// than stopping the compile, and fail the tests' builds.
    pub fn get(&self) -> &[Reference] {
        self.list.get_or_init(|| {
            let decoded = self.encoded.as_deref().map(postcard::from_bytes);
            debug_assert!(
                !matches!(decoded, Some(Err(_))) || cfg!(test),
                "references kept encoded did not decode"
            );
            decoded.and_then(Result::ok).unwrap_or_default()
        })
    }

    /// The list, to extend while extracting.
    fn list_mut(&mut self) -> &mut Vec<Reference> {
        self.get();
        self.encoded = None;
        self.list.get_mut().expect("decoded above")
    }

    fn push(&mut self, r: Reference) {
        self.list_mut().push(r);
    }

    fn last_mut(&mut self) -> Option<&mut Reference> {
        self.list_mut().last_mut()
    }
}

impl serde::Serialize for Refs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.encoded {
            Some(bytes) => s.serialize_bytes(bytes),
            None => {
                let bytes = postcard::to_allocvec(self.get()).map_err(serde::ser::Error::custom)?;
                s.serialize_bytes(&bytes)
            }
        }
    }
}

impl<'de> serde::Deserialize<'de> for Refs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Refs, D::Error> {
        struct Bytes;
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the encoded references of a file")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
        }
        Ok(Refs {
            list: std::sync::OnceLock::new(),
            encoded: Some(d.deserialize_byte_buf(Bytes)?),
        })
    }
}

pub const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char", "str",
];

#[derive(Default)]
struct Scope {
    vals: HashMap<String, Recv>,
    tys: HashMap<String, Vec<Ty>>,
}

struct Walker<'s> {
    src: &'s str,
    f: RsFile,
    scopes: Vec<Scope>,
    module: usize,
    source: Option<usize>,
    selfc: Option<SelfCtx>,
    /// How deep the walk is; past [`MAX_DEPTH`] it stops and the file is `partial`.
    depth: Depth,
    too_deep: bool,
    /// Inside a macro's token tree, re-parsed: (line, column) of its first byte in the file,
    /// and the length of the wrapper put before it.
    shift: Option<(u32, u32, u32)>,
    /// With `shift`: the file offset of the token tree's first byte.
    byte_base: usize,
    in_macro_def: bool,
    /// The features the file is compiled with, when known.
    features: Option<&'s std::collections::BTreeSet<String>>,
    /// Inside the arguments of an invocation of a macro whose expansion is not known (not one
    /// of [`EXPRESSION_MACROS`]): what its arguments name may mean something else there.
    in_opaque_macro_args: bool,
}

/// Macros of the standard library whose arguments are expressions evaluated where the macro
/// is invoked: a name in their arguments means what it means there.
pub const EXPRESSION_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "dbg",
    "eprint",
    "eprintln",
    "format",
    "format_args",
    "panic",
    "print",
    "println",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
    "writeln",
    "matches",
];

/// A parser of Rust.
fn parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_rust::LANGUAGE.into())
        .ok()?;
    Some(parser)
}

/// Extracts a file compiled with `features` (`None`: not known, features undecided).
pub fn extract(src: &str, features: Option<&std::collections::BTreeSet<String>>) -> RsFile {
    extract_with(src, tree_sitter_rust::LANGUAGE.into(), |root| {
        let mut w = Walker {
            src,
            f: RsFile::default(),
            scopes: vec![Scope::default()],
            module: 0,
            source: None,
            selfc: None,
            depth: Depth::default(),
            too_deep: false,
            shift: None,
            byte_base: 0,
            in_macro_def: false,
            in_opaque_macro_args: false,
            features,
        };
        w.f.mods.push(ModuleDecl {
            parent: None,
            name: String::new(),
            inline: false,
            block: false,
            path_attr: None,
            exported: true,
            span: Span::of(root),
        });
        w.f.has_error = root.has_error();
        w.items(root);
        let mut f = w.f;
        f.has_error |= w.too_deep;
        f
    })
}

impl Extraction for RsFile {
    fn set_has_errors(&mut self) {
        self.has_error = true;
    }
}

fn field<'t>(n: Node<'t>, name: &str) -> Option<Node<'t>> {
    n.field(name)
}

struct Attrs {
    path: Option<String>,
    macro_export: bool,
    derives: Vec<(Vec<String>, (u32, u32))>,
}

impl<'s> Walker<'s> {
    fn t(&self, n: Node) -> &'s str {
        text(n, self.src)
    }

    /// A node's position in the file (through the shift of a re-parsed token tree).
    fn at(&self, n: Node) -> (u32, u32) {
        let (l, c) = pos(n);
        match self.shift {
            None => (l, c),
            Some((l0, c0, plen)) if l == 1 => (l0, c0 + c.saturating_sub(plen)),
            Some((l0, _, _)) => (l0 + l - 1, c),
        }
    }

    /// The position of a scoped path's last segment (its `name`), else of the node.
    fn name_at(&self, n: Node) -> (u32, u32) {
        field(n, "name").map_or(self.at(n), |x| self.at(x))
    }

    /// A byte offset of the text being walked as an offset of the file.
    fn file_byte(&self, b: usize) -> usize {
        match self.shift {
            None => b,
            Some((_, _, plen)) => self.byte_base + b.saturating_sub(plen as usize),
        }
    }

    /// A node's span in the file.
    fn span(&self, n: Node) -> Span {
        let mut sp = Span::of(n);
        if self.shift.is_some() {
            let (sl, sc) = self.at(n);
            let e = n.end_position();
            let (el, ec) = match self.shift {
                Some((l0, c0, plen)) if e.row == 0 => {
                    (l0, c0 + (e.column as u32).saturating_sub(plen))
                }
                Some((l0, _, _)) => (l0 + e.row as u32, e.column as u32),
                None => (sp.end_line, sp.end_column),
            };
            sp = Span {
                start_line: sl,
                start_column: sc,
                end_line: el,
                end_column: ec,
                start_byte: self.file_byte(n.start_byte()) as u32,
                end_byte: self.file_byte(n.end_byte()) as u32,
            };
        }
        sp
    }

    /// Item `id`'s written type is type node `t` (a field's, a return type, an alias's
    /// target…), whose paths are type references.
    fn typed(&mut self, id: usize, t: Node) {
        let ty = self.deeper(|w| w.ty_of(t));
        self.f.items[id].ty = Some(ty);
        self.deeper(|w| w.ty(t));
    }

    /// Runs `f` one level deeper.
    fn deeper<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.depth.enter();
        let r = f(self);
        self.depth.leave();
        r
    }

    /// Walks the child in field `name` of `n`, if there is one, with `walk` one level deeper.
    fn walk_field(&mut self, n: Node, name: &str, walk: impl FnOnce(&mut Self, Node)) {
        if let Some(k) = field(n, name) {
            self.deeper(|w| walk(w, k));
        }
    }

    fn deep(&mut self) -> bool {
        if self.depth.get() > MAX_DEPTH {
            self.too_deep = true;
            true
        } else {
            false
        }
    }

    fn is_local(&self, name: &str) -> Option<&Recv> {
        self.scopes.iter().rev().find_map(|s| s.vals.get(name))
    }

    fn generic(&self, name: &str) -> Option<&Vec<Ty>> {
        self.scopes.iter().rev().find_map(|s| s.tys.get(name))
    }

    fn push_ref(&mut self, kind: RefKind, what: What, pos: (u32, u32)) {
        self.f.refs.push(Reference {
            module: self.module,
            source: self.source,
            selfc: self.selfc,
            kind,
            what,
            pos,
            prefix_pos: None,
            opaque_macro_arg: self.in_opaque_macro_args,
            in_macro_def: self.in_macro_def,
        });
    }

    /// A reference to the path `segs` written by node `n` (its prefix's position noted).
    fn push_path_ref(&mut self, kind: RefKind, segs: Vec<String>, ns: Ns, n: Node) {
        let at = self.name_at(n);
        self.push_ref(kind, What::Path(segs, ns), at);
        let prefix = self.prefix_at(n);
        if let Some(r) = self.f.refs.last_mut() {
            r.prefix_pos = prefix;
        }
    }

    /// Where the last segment of the prefix of the scoped path `n` is written (`B` of
    /// `a::B::c`, of `B::<T>::c`).
    fn prefix_at(&self, n: Node) -> Option<(u32, u32)> {
        let mut p = field(n, "path")?;
        for _ in 0..4 {
            match p.kind_name() {
                "scoped_identifier" | "scoped_type_identifier" => return Some(self.name_at(p)),
                "identifier" | "type_identifier" => return Some(self.at(p)),
                "generic_type" => p = field(p, "type")?,
                _ => return None,
            }
        }
        None
    }
}

/// Whether a syntax node kind is an item (a declaration a block or module may hold).
fn is_item(kind: &str) -> bool {
    matches!(
        kind,
        "function_item"
            | "struct_item"
            | "enum_item"
            | "union_item"
            | "trait_item"
            | "impl_item"
            | "type_item"
            | "const_item"
            | "static_item"
            | "macro_definition"
            | "use_declaration"
            | "mod_item"
            | "extern_crate_declaration"
    )
}

#[cfg(test)]
mod refs_tests {
    use super::*;

    #[test]
    fn references_kept_encoded_read_and_encode_as_the_ones_extracted() {
        let built = extract("fn f() { g(); a::b::c(1); x.m(); }\nfn g() {}\n", None);
        assert!(built.refs.get().len() >= 3);
        let bytes = postcard::to_allocvec(&built).unwrap();
        let read: RsFile = postcard::from_bytes(&bytes).unwrap();
        // Kept encoded until read, and written again byte for byte without being decoded.
        assert!(read.refs.encoded.is_some() && read.refs.list.get().is_none());
        assert_eq!(postcard::to_allocvec(&read).unwrap(), bytes);
        assert_eq!(
            format!("{:?}", read.refs.get()),
            format!("{:?}", built.refs.get())
        );
        // Decoded, it still writes the same bytes.
        assert_eq!(postcard::to_allocvec(&read).unwrap(), bytes);
        // Bytes that do not decode give no references.
        let broken = Refs {
            list: std::sync::OnceLock::new(),
            encoded: Some(vec![0xff; 3]),
        };
        assert!(broken.get().is_empty());
    }
}
