//! Phase 1 alike in Python and TypeScript (and Dart's parsing): how a name was bound in its
//! file, the declaration that owns the references being recorded, and the parse of a file.

use crate::hash::HashMap;

use tree_sitter::Node;

use crate::lang::parse;

/// How a name was bound in its file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum NameRes {
    /// A declaration of this file (index into the file's declarations).
    Decl(usize),
    /// An import binding (index into the file's imports).
    Import(usize),
    /// A local variable, parameter, type parameter or local type (index into the file's
    /// locals).
    Local(usize),
    /// Not bound by any scope of the file: a global or builtin, a star import's name, or a
    /// mistake.
    Unbound(String),
}

/// What phase 1 makes of a file; it says whether the file has syntax errors.
pub(crate) trait FileRecord: Default {
    fn has_error_mut(&mut self) -> &mut bool;
}

/// Parses `src` with `language` and extracts its file record with `extract`, from the root node
/// and a new record that says whether the tree has errors. When the parser gives up, the new
/// record marked as having errors: there is nothing to extract.
pub(crate) fn extract_file<F: FileRecord>(
    src: &str,
    language: tree_sitter::Language,
    extract: impl FnOnce(Node, F) -> F,
) -> F {
    extract_tree(parse(src, language), extract)
}

/// [`extract_file`] over a tree parsed by the caller (`None`: the parser gave up).
pub(crate) fn extract_tree<F: FileRecord>(
    tree: Option<tree_sitter::Tree>,
    extract: impl FnOnce(Node, F) -> F,
) -> F {
    let mut file = F::default();
    let Some(tree) = tree else {
        *file.has_error_mut() = true;
        return file;
    };
    let root = tree.root_node();
    *file.has_error_mut() = root.has_error();
    extract(root, file)
}

/// An extractor that records which declaration encloses what it walks: the owner of the
/// references it records.
pub(crate) trait Owned: Sized {
    /// The innermost enclosing declaration (`None`: the module).
    fn owner_mut(&mut self) -> &mut Option<usize>;
    /// The declaration of each declaring node, by (start byte, kind id).
    fn decl_at(&self) -> &HashMap<(usize, u16), usize>;

    /// The declaration node `n` declares, if it was recorded.
    fn decl_of(&self, n: Node) -> Option<usize> {
        self.decl_at().get(&(n.start_byte(), n.kind_id())).copied()
    }

    /// Runs `f` with declaration `d` as the owner (with `None`, the owner stays), then restores
    /// the owner.
    fn with_owner(&mut self, d: Option<usize>, f: impl FnOnce(&mut Self)) {
        let saved = *self.owner_mut();
        if d.is_some() {
            *self.owner_mut() = d;
        }
        f(self);
        *self.owner_mut() = saved;
    }
}

/// Implements [`Owned`] for the module's `Extractor`, which keeps its owner in `owner` and its
/// declaring nodes in `decl_at`.
macro_rules! owned_extractor {
    () => {
        impl crate::lang::shared::extract::Owned for Extractor<'_> {
            fn owner_mut(&mut self) -> &mut Option<usize> {
                &mut self.owner
            }

            fn decl_at(&self) -> &HashMap<(usize, u16), usize> {
                &self.decl_at
            }
        }
    };
}
pub(crate) use owned_extractor;
