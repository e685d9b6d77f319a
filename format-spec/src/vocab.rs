//! The frozen vocabularies of a generation: languages, symbol kinds, edge kinds, confidences and
//! provenances.
//!
//! Every enum here is **append-only**: a code, once published, keeps its meaning forever, because
//! the graph blob stores the code, and the Parquet tables and analysts' queries store the name.
//! New values go at the end with the next free code; nothing is renumbered or removed.

macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident : $repr:ty { $( $(#[$vmeta:meta])* $variant:ident = $code:literal => $text:literal ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr($repr)]
        $vis enum $name { $( $(#[$vmeta])* $variant = $code ),+ }

        impl $name {
            /// Every value, in code order.
            pub const ALL: &'static [$name] = &[ $( $name::$variant ),+ ];

            /// The frozen numeric code stored in tables and blobs.
            pub const fn code(self) -> $repr { self as $repr }

            /// The frozen wire name.
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $text ),+ }
            }

            /// Looks a value up by its code; `None` for a code this build does not know.
            pub fn from_code(code: $repr) -> Option<Self> {
                match code { $( $code => Some($name::$variant), )+ _ => None }
            }

            /// Looks a value up by its exact wire name.
            pub fn parse(text: &str) -> Option<Self> {
                match text { $( $text => Some($name::$variant), )+ _ => None }
            }
        }

        /// Serialized as its frozen code; an unknown code is an error.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                serde::Serialize::serialize(&self.code(), s)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let code = <$repr as serde::Deserialize>::deserialize(d)?;
                Self::from_code(code).ok_or_else(|| {
                    <D::Error as serde::de::Error>::custom(format_args!(
                        "unknown {} code {code}",
                        stringify!($name)
                    ))
                })
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

vocabulary! {
    /// Source languages.
    pub enum Language: u8 {
        Go = 1 => "go",
        TypeScript = 2 => "typescript",
        JavaScript = 3 => "javascript",
        Rust = 4 => "rust",
        Python = 5 => "python",
        Dart = 6 => "dart",
    }
}

impl Language {
    /// The language a file extension belongs to, if it is one we discover.
    pub fn from_extension(ext: &str) -> Option<Language> {
        Some(match ext {
            "go" => Language::Go,
            "ts" | "tsx" | "mts" | "cts" => Language::TypeScript,
            "js" | "jsx" | "mjs" | "cjs" => Language::JavaScript,
            "rs" => Language::Rust,
            "py" | "pyi" => Language::Python,
            "dart" => Language::Dart,
            _ => return None,
        })
    }
}

vocabulary! {
    /// Symbol kinds. The vocabulary is shared by all languages; each language uses the words its
    /// own documentation uses (Go says `func` and `var`, TypeScript says `function` and `variable`).
    pub enum SymbolKind: u8 {
        Alias = 1 => "alias",
        AssociatedType = 2 => "associated_type",
        Attribute = 3 => "attribute",
        Class = 4 => "class",
        Const = 5 => "const",
        Constant = 6 => "constant",
        Enum = 7 => "enum",
        EnumMember = 8 => "enum_member",
        Export = 9 => "export",
        Field = 10 => "field",
        Func = 11 => "func",
        Function = 12 => "function",
        Implementation = 13 => "implementation",
        Import = 14 => "import",
        Interface = 15 => "interface",
        Macro = 16 => "macro",
        Method = 17 => "method",
        Module = 18 => "module",
        Namespace = 19 => "namespace",
        Parameter = 20 => "parameter",
        Property = 21 => "property",
        SelfParameter = 22 => "self_parameter",
        Static = 23 => "static",
        StaticMethod = 24 => "static_method",
        Struct = 25 => "struct",
        Trait = 26 => "trait",
        TraitMethod = 27 => "trait_method",
        Type = 28 => "type",
        TypeAlias = 29 => "type_alias",
        TypeParameter = 30 => "type_parameter",
        Union = 31 => "union",
        Var = 32 => "var",
        Variable = 33 => "variable",
    }
}

vocabulary! {
    /// Edge kinds. `PackageDependsOn` and `ModuleDependsOn` connect packages and live in the
    /// package-edge table, never in the symbol adjacency.
    pub enum EdgeKind: u8 {
        ContainsPackage = 1 => "CONTAINS_PACKAGE",
        ContainsFile = 2 => "CONTAINS_FILE",
        Defines = 3 => "DEFINES",
        PackageDependsOn = 4 => "PACKAGE_DEPENDS_ON",
        ModuleDependsOn = 5 => "MODULE_DEPENDS_ON",
        ImportsSymbol = 6 => "IMPORTS_SYMBOL",
        Exports = 7 => "EXPORTS",
        Reexports = 8 => "REEXPORTS",
        References = 9 => "REFERENCES",
        CallsDirect = 10 => "CALLS_DIRECT",
        PassesAsCallback = 11 => "PASSES_AS_CALLBACK",
        AssignsFunction = 12 => "ASSIGNS_FUNCTION",
        ReturnsFunction = 13 => "RETURNS_FUNCTION",
        TypeUses = 14 => "TYPE_USES",
        Implements = 15 => "IMPLEMENTS",
        Extends = 16 => "EXTENDS",
        Embeds = 17 => "EMBEDS",
        Overrides = 18 => "OVERRIDES",
        PartOf = 19 => "PART_OF",
        MethodOf = 20 => "METHOD_OF",
    }
}

impl EdgeKind {
    /// Whether the kind is in the reference vocabulary that query filters accept (codes 6–18).
    pub fn is_reference(self) -> bool {
        (6..=18).contains(&self.code())
    }
}

vocabulary! {
    /// Confidence, in strength order.
    pub enum Confidence: u8 {
        ExactTypechecked = 1 => "EXACT_TYPECHECKED",
        ExactDeclarationMapped = 2 => "EXACT_DECLARATION_MAPPED",
        ExactPackageMapped = 3 => "EXACT_PACKAGE_MAPPED",
        StructuralCertain = 4 => "STRUCTURAL_CERTAIN",
        Candidate = 5 => "CANDIDATE",
        Unresolved = 6 => "UNRESOLVED",
    }
}

impl Confidence {
    /// Codes 1–4 are "exact".
    pub fn is_exact(self) -> bool {
        self.code() <= 4
    }
}

vocabulary! {
    /// Provenance: the rule of *this* implementation that produced an edge, so precision can be
    /// measured per rule. These names never claim an analysis kivgraph does not run.
    pub enum Provenance: u16 {
        /// A Go identifier bound through block, file, package or universe scope.
        GoScope = 1 => "GO_SCOPE",
        /// A Go selector `pkg.Name` bound through an import of the file.
        GoImportSelector = 2 => "GO_IMPORT_SELECTOR",
        /// A Go member `x.M` whose receiver's type is written in the code.
        GoReceiverTyped = 3 => "GO_RECEIVER_TYPED",
        /// A Go fact read off a declaration alone (method-of, embedding).
        GoDeclaration = 4 => "GO_DECLARATION",
        /// A Go member matched by name only, receiver type unknown.
        GoNameOnly = 5 => "GO_NAME_ONLY",
        /// A dependency read from a package manifest.
        PackageManifest = 6 => "PACKAGE_MANIFEST",
        /// A package dependency read from a Go import declaration.
        GoImport = 7 => "GO_IMPORT",
        TsScope = 8 => "TS_SCOPE",
        TsModuleBinding = 9 => "TS_MODULE_BINDING",
        TsReceiverTyped = 10 => "TS_RECEIVER_TYPED",
        TsDeclaration = 11 => "TS_DECLARATION",
        TsNameOnly = 12 => "TS_NAME_ONLY",
        TsImport = 13 => "TS_IMPORT",
        TsUnionMember = 14 => "TS_UNION_MEMBER",
        PyScope = 15 => "PY_SCOPE",
        PyImport = 16 => "PY_IMPORT",
        PyReceiverTyped = 17 => "PY_RECEIVER_TYPED",
        PyDeclaration = 18 => "PY_DECLARATION",
        PyNameOnly = 19 => "PY_NAME_ONLY",
        PyImportDependency = 20 => "PY_IMPORT_DEPENDENCY",
        /// A Rust name bound through local (block, closure, pattern) or module scope, textual
        /// `macro_rules!` scope included.
        RustScope = 21 => "RUST_SCOPE",
        /// A Rust path bound through `use`, `crate`/`self`/`super`/`$crate`, an extern crate,
        /// or `Type::item` once `Type` resolved.
        RustPath = 22 => "RUST_PATH",
        /// A Rust member `x.m` or `x.f` whose receiver's type is written in the code (`self`
        /// included).
        RustReceiverTyped = 23 => "RUST_RECEIVER_TYPED",
        /// A Rust fact read off declarations (method-of, implements).
        RustDeclaration = 24 => "RUST_DECLARATION",
        /// A Rust method or field matched by name only, receiver type unknown.
        RustNameOnly = 25 => "RUST_NAME_ONLY",
        /// A module dependency read from a Rust `use`, path or `extern crate`.
        RustUseDependency = 26 => "RUST_USE_DEPENDENCY",
        /// A Dart name bound through the lexical scopes of a library (its parts included).
        DartScope = 27 => "DART_SCOPE",
        /// A Dart name bound through an `import` (prefixed or not, `show`/`hide` honoured) or an
        /// `export` chain.
        DartImport = 28 => "DART_IMPORT",
        /// A Dart member `x.m` whose receiver's type is written in the code (`this` and `super`
        /// included).
        DartReceiverTyped = 29 => "DART_RECEIVER_TYPED",
        /// A Dart fact read off declarations (method-of, extends, implements, with, overrides,
        /// part-of).
        DartDeclaration = 30 => "DART_DECLARATION",
        /// A Dart member matched by name only, receiver type unknown.
        DartNameOnly = 31 => "DART_NAME_ONLY",
        /// A library dependency read from a Dart `import`, `export` or `part` directive.
        DartImportDependency = 32 => "DART_IMPORT_DEPENDENCY",
        /// A Rust name written in the arguments of a macro whose expansion is not known (any
        /// macro but the standard library's expression macros): always a candidate.
        RustMacroArgument = 33 => "RUST_MACRO_ARGUMENT",
    }
}

vocabulary! {
    /// What became of a discovered source file.
    pub enum FileStatus: u8 {
        /// Parsed cleanly and extracted.
        Indexed = 1 => "indexed",
        /// Parsed with syntax errors; the facts outside the broken regions were kept.
        Partial = 2 => "partial",
        /// A language whose resolver has not landed yet.
        LanguageNotSupported = 3 => "language_not_supported",
        /// Looks binary (NUL bytes).
        Binary = 4 => "binary",
        /// Over the size limit.
        Oversized = 5 => "oversized",
        /// Not valid UTF-8.
        NotUtf8 = 6 => "not_utf8",
        /// Excluded by build constraints (Go `//go:build`, `_os`/`_arch` suffixes).
        BuildExcluded = 7 => "build_excluded",
        /// Could not be read.
        Unreadable = 8 => "unreadable",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_round_trip() {
        for k in EdgeKind::ALL {
            assert_eq!(EdgeKind::from_code(k.code()), Some(*k));
            assert_eq!(EdgeKind::parse(k.as_str()), Some(*k));
        }
        for k in SymbolKind::ALL {
            assert_eq!(SymbolKind::parse(k.as_str()), Some(*k));
        }
        for p in Provenance::ALL {
            assert_eq!(Provenance::from_code(p.code()), Some(*p));
        }
    }

    /// The codes are frozen: a change here is a format break, not a refactor.
    #[test]
    fn frozen_codes() {
        assert_eq!(EdgeKind::CallsDirect.code(), 10);
        assert_eq!(EdgeKind::MethodOf.code(), 20);
        assert_eq!(Confidence::Candidate.code(), 5);
        assert_eq!(SymbolKind::Func.code(), 11);
        assert_eq!(SymbolKind::Variable.code(), 33);
        assert_eq!(Language::Dart.code(), 6);
        assert_eq!(FileStatus::BuildExcluded.code(), 7);
        assert_eq!(FileStatus::Unreadable.as_str(), "unreadable");
        assert_eq!(Provenance::GoNameOnly.code(), 5);
        assert_eq!(Provenance::RustPath.code(), 22);
        assert_eq!(Provenance::DartImportDependency.code(), 32);
        assert!(EdgeKind::Overrides.is_reference());
        assert!(!EdgeKind::MethodOf.is_reference());
    }
}
