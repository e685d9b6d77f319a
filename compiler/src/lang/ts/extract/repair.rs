//! A second parse for what tree-sitter-typescript 0.23.2 misreads (SPEC section 11).
//!
//! The grammar does not end a member of an interface or object type at a line break when the
//! next member is a *generic* call or construct signature:
//!
//! ```text
//! interface Wrap {
//!   <T>(v: T): T[]
//!   <T>(v: T, n: number): T[]
//! }
//! ```
//!
//! It reads `T[]` `<T>(…)` as one expression, gives up on the interface and recovers later, so
//! the members after the first are lost, and in larger files declarations after the interface
//! too. TypeScript itself ends the member at the line break. When a parse has errors, such
//! lines are found (indented, starting with `<` and a type parameter, after a line that ends a
//! member), the indentation character just before the `<` is replaced by `;`, and the file is
//! parsed again. The replacement keeps every byte offset, line and column, so the second tree
//! describes the original text exactly; it is kept only when it has fewer error and missing
//! nodes than the first.

use tree_sitter::{Language, Tree};

/// Parses `src`, and parses it again with generic signatures separated when that removes
/// errors.
pub(super) fn parse(src: &str, language: Language) -> Option<Tree> {
    let tree = crate::lang::parse(src, language.clone())?;
    if !tree.root_node().has_error() {
        return Some(tree);
    }
    let Some(repaired) = separate_generic_signatures(src) else {
        return Some(tree);
    };
    match crate::lang::parse(&repaired, language) {
        Some(second) if errors(&second) < errors(&tree) => Some(second),
        _ => Some(tree),
    }
}

/// `src` with `;` in place of the indentation character before each generic signature that
/// starts a line (`<T>(…)`, or a lone `<` whose type parameters follow on the next lines) after
/// a line that ends a member (comment lines between them are passed over); `None` when there is
/// none.
fn separate_generic_signatures(src: &str) -> Option<String> {
    let mut bytes = src.as_bytes().to_vec();
    let mut changed = false;
    let mut previous_end: Option<u8> = None;
    let mut start = 0;
    while start < src.len() {
        let end = src[start..].find('\n').map_or(src.len(), |i| start + i);
        let line = &src.as_bytes()[start..end];
        let indent = line
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let rest = &line[indent..];
        // `<T>(…)`, or `<` alone with the type parameters on the lines after it.
        let generic = rest.first() == Some(&b'<')
            && rest
                .get(1)
                .is_none_or(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$' | b'\r'));
        if indent > 0 && generic && previous_end.is_some_and(ends_a_member) {
            bytes[start + indent - 1] = b';';
            changed = true;
        }
        // Comment lines (`//`, `/*`, and the `*` lines of a block comment) end nothing.
        let comment = [&b"//"[..], b"/*", b"*"]
            .iter()
            .any(|c| rest.starts_with(c));
        if let Some(last) = line.iter().rev().find(|b| !b.is_ascii_whitespace())
            && !comment
        {
            previous_end = Some(*last);
        }
        start = end + 1;
    }
    // Only ASCII whitespace was replaced by ASCII, so the text is still UTF-8.
    changed.then(|| String::from_utf8(bytes).ok()).flatten()
}

/// Whether a line ending in `last` can end an interface member: a type ends in a name, a
/// bracket, a quote or the `>` of type arguments, never in an operator or an opening bracket.
fn ends_a_member(last: u8) -> bool {
    last.is_ascii_alphanumeric()
        || matches!(last, b']' | b')' | b'>' | b'"' | b'\'' | b'`' | b'_' | b'$')
}

/// Error and missing nodes of `tree`.
fn errors(tree: &Tree) -> usize {
    let mut cursor = tree.walk();
    let mut count = 0;
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return count;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_generic_signatures_after_a_member_end_are_separated() {
        let src = "interface W {\n  <T>(v: T): T[]\n  <T>(v: T, n: number): T[]\n  /** doc */\n  <\n    T,\n  >(v: T): T\n}\n";
        let repaired = separate_generic_signatures(src).unwrap();
        assert_eq!(repaired.len(), src.len());
        assert_eq!(
            repaired,
            "interface W {\n  <T>(v: T): T[]\n ;<T>(v: T, n: number): T[]\n  /** doc */\n ;<\n    T,\n  >(v: T): T\n}\n"
        );
        // After an opening bracket, a comma or an operator the line continues an expression.
        for src in [
            "f(\n  <T>(x: T) => x,\n)\n",
            "const a = b <\n  <T>(x: T) => x\n",
            "interface W {\n<T>(v: T): T[]\n}\n",
        ] {
            assert_eq!(separate_generic_signatures(src), None, "{src:?}");
        }
    }
}
