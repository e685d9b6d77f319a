//! The description phase 1 leaves for phase 2: a file's directives, declarations, locals and
//! references, with every name that lexical scope could not bind kept as written.

use crate::hash::HashMap;

use kivgraph_format::SymbolKind;

use crate::lang::Span;

/// How a reference uses what it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Use {
    Value,
    Call,
    Type,
    /// `extends` and `with`.
    Extends,
    Implements,
    /// Passed as an argument: a tear-off of a function is a callback.
    Argument,
    /// Metadata (`@deprecated`, `@Foo(1)`).
    Annotation,
    /// The left side of an assignment, or an initializing formal / field initializer.
    Write,
    /// An operator (`a + b`, `a[i]`): bound only on a receiver of written type.
    Operator,
    /// A super parameter (`super.x`): the field the super constructor initializes, when it
    /// is one; otherwise a parameter of that constructor, which is no symbol.
    SuperFormal,
}

/// The class context of a name: the enclosing class-like declaration, and whether `this`
/// exists there (an instance member, not a static one or a top-level declaration).
pub type ClassContext = Option<(usize, bool)>;

/// A type as written: `p.C<A, B>`, nullable `?` left out.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TypeRef {
    Named {
        prefix: Option<String>,
        name: String,
        args: Vec<TypeRef>,
    },
    /// A type parameter in scope.
    Param,
    /// `dynamic`, a function type, a record type: nothing to follow.
    Unknown,
}

/// A value as written, for receiver typing.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Expr {
    Unknown,
    /// A literal of a `dart:core` type (`String`, `int`, `List`, …).
    Core(CoreName),
    Local(usize),
    /// A name lexical scope left open: a class member, the library scope, an import.
    Name(String, ClassContext),
    This(usize),
    Super(usize),
    Member(Box<Expr>, String),
    Call(Box<Expr>),
    Cast(TypeRef),
    Await(Box<Expr>),
    /// An element of `.0` (`for (x in xs)`, `xs[i]`).
    Elem(Box<Expr>),
    /// `new p.C.named()`, `C<T>.named()`: an instance of the class.
    New(TypeRef),
    /// `a + b`: the left operand and the operator's member name (`operator+`).
    Op(Box<Expr>, String),
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Target {
    /// An identifier lexical scope did not bind.
    Name(String, ClassContext),
    /// `x.m`.
    Member(Expr, String),
    /// A type name (`prefix` when written `p.C`).
    TypeName(Option<String>, String),
    /// A constructor named in `new`/`const`/`C.new`/`C<T>.named()`: the class as a type, and
    /// the constructor's name (`None` for the unnamed one).
    Ctor(TypeRef, Option<String>),
    /// `super(…)` / `super.named(…)` in an initializer list of a constructor of class `.0`.
    SuperCtor(usize, Option<String>),
    /// `this(…)` / `this.named(…)` redirecting to a constructor of class `.0`.
    ThisCtor(usize, Option<String>),
    /// A `show` name of directive `.0`.
    Shown(usize, String),
}

pub type Ref = crate::lang::Ref<Use, Target>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SuperKind {
    Extends,
    With,
    Implements,
    /// `on` of a mixin (its superclass constraint) or of an extension (the extended type).
    On,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Decl {
    pub name: String,
    pub qn: String,
    pub kind: SymbolKind,
    pub parent: Option<usize>,
    pub span: Span,
    /// Where its name is written: the occurrence of its structural edges.
    pub at: (u32, u32),
    pub signature: Option<String>,
    /// The written type of a field or variable, the return type of a function, method or
    /// getter.
    pub ty: Option<TypeRef>,
    /// The initializer of a field or variable without a written type.
    pub value: Option<Expr>,
    pub supers: Vec<(SuperKind, TypeRef)>,
    /// Members by name (class-like declarations). A getter and its setter are one.
    #[serde(serialize_with = "crate::hash::sorted_map")]
    pub members: HashMap<String, usize>,
    pub is_static: bool,
    /// A constructor (`C.new`, `C.named`, factories).
    pub ctor: bool,
    /// A class-like declaration that is a mixin (`mixin M`).
    pub mixin: bool,
    /// An extension (`extension E on T`).
    pub extension: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DirectiveKind {
    Import,
    Export,
    Part,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Directive {
    pub kind: DirectiveKind,
    pub uri: String,
    /// Position of the URI string.
    pub line: u32,
    pub column: u32,
    pub prefix: Option<String>,
    /// `show` names with their positions; `None` without `show`.
    pub show: Option<Vec<(String, u32, u32)>>,
    pub hide: Vec<String>,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Local {
    pub ty: Option<TypeRef>,
    pub value: Option<Expr>,
    /// A local function: its return type.
    pub ret: Option<TypeRef>,
    pub func: bool,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DartFile {
    pub library_name: Option<String>,
    /// `part of 'uri'` / `part of a.b`: (uri or dotted name, is a uri).
    pub part_of: Option<(String, bool)>,
    /// Line of the `part of` directive.
    pub part_of_line: u32,
    pub directives: Vec<Directive>,
    pub decls: Vec<Decl>,
    pub locals: Vec<Local>,
    pub refs: Vec<Ref>,
    /// Top-level names declared in this file.
    #[serde(serialize_with = "crate::hash::sorted_map")]
    pub top: HashMap<String, usize>,
    pub has_error: bool,
}

/// The name of a `dart:core` literal type (`String`, `int`, …), serialized by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoreName(pub &'static str);

impl CoreName {
    /// The names literals take.
    const NAMES: &[&str] = &["String", "int", "double", "bool", "List", "Map", "Symbol"];
}

impl serde::Serialize for CoreName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for CoreName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        CoreName::NAMES
            .iter()
            .find(|n| **n == name)
            .map(|n| CoreName(n))
            .ok_or_else(|| <D::Error as serde::de::Error>::custom("not a dart:core literal type"))
    }
}
