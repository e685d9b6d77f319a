//! Compact JSON text of a [`Value`], byte for byte what `serde_json::to_string` writes, faster
//! on long strings.
//!
//! An answer is mostly strings (paths, names, signatures), and the MCP layer writes each answer
//! again as one string inside its response. serde_json looks every byte of a string up in its
//! escape table; here eight bytes at a time are tested for anything that needs an escape (a
//! control character, `"` or `\`), and the runs without one are copied whole. Escapes are
//! serde_json's: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and `\u00xx` (lowercase hex) for the
//! other control characters; nothing else is escaped.

use std::fmt::Write as _;

use serde_json::Value;

/// Where the text goes: a string, or a count of its bytes.
trait Out {
    fn text(&mut self, s: &str);
}

impl Out for String {
    #[inline]
    fn text(&mut self, s: &str) {
        self.push_str(s);
    }
}

/// Counts the bytes of the text instead of writing it.
struct Count(usize);

impl Out for Count {
    #[inline]
    fn text(&mut self, s: &str) {
        self.0 += s.len();
    }
}

/// The compact JSON text of `v`: what `serde_json::to_string(v)` gives.
pub fn to_string(v: &Value) -> String {
    let mut out = String::with_capacity(256);
    value(v, &mut out);
    out
}

/// The length of [`to_string`]`(v)`, without writing it.
pub fn len(v: &Value) -> usize {
    let mut n = Count(0);
    value(v, &mut n);
    n.0
}

fn value(v: &Value, out: &mut impl Out) {
    match v {
        Value::Null => out.text("null"),
        Value::Bool(true) => out.text("true"),
        Value::Bool(false) => out.text("false"),
        Value::Number(n) => {
            // `Number`'s `Display` is its serialization (itoa for integers, ryu for floats).
            let mut b = Digits([0; 40], 0);
            let _ = write!(b, "{n}");
            out.text(std::str::from_utf8(&b.0[..b.1]).unwrap_or_default());
        }
        Value::String(s) => string(s, out),
        Value::Array(items) => {
            out.text("[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.text(",");
                }
                value(item, out);
            }
            out.text("]");
        }
        Value::Object(map) => {
            out.text("{");
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.text(",");
                }
                string(k, out);
                out.text(":");
                value(item, out);
            }
            out.text("}");
        }
    }
}

/// A number's text, on the stack (the longest, a float's, is 24 bytes).
struct Digits([u8; 40], usize);

impl std::fmt::Write for Digits {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.1 + s.len();
        self.0
            .get_mut(self.1..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.1 = end;
        Ok(())
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `w` is below 0x20, `"` or `\`. Exact as a whole: each test is the
/// classic "has a byte less than n" / "has a zero byte", which can only err in a byte above one
/// that holds.
#[inline]
fn needs_escape(w: u64) -> bool {
    let below = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let b = w ^ (ONES * u64::from(b'\\'));
    let backslash = b.wrapping_sub(ONES) & !b;
    (below | quote | backslash) & HIGHS != 0
}

fn string(s: &str, out: &mut impl Out) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.text("\"");
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Whole words without an escape are skipped eight bytes at a time.
        while let Some(chunk) = bytes.get(i..i + 8) {
            let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            if needs_escape(w) {
                break;
            }
            i += 8;
        }
        let Some(&b) = bytes.get(i) else { break };
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0..0x20 => Some(""),
            _ => None,
        };
        if let Some(e) = escape {
            // `i` is at an ASCII byte, so a char boundary.
            out.text(&s[start..i]);
            if e.is_empty() {
                let u = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ];
                out.text(std::str::from_utf8(&u).unwrap_or_default());
            } else {
                out.text(e);
            }
            start = i + 1;
        }
        i += 1;
    }
    out.text(&s[start..]);
    out.text("\"");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same(v: &Value) {
        let want = serde_json::to_string(v).unwrap();
        assert_eq!(to_string(v), want, "for {v:?}");
        assert_eq!(len(v), want.len());
    }

    #[test]
    fn every_byte_and_shape_is_written_as_serde_json_writes_it() {
        // Every ASCII byte alone, and at each position of strings long enough to take the
        // eight-byte path before, inside and after a word.
        for b in 0u8..0x80 {
            let c = char::from(b);
            same(&json!(c.to_string()));
            for at in 0..20 {
                let mut s: String = "abcdefghijklmnopqrstuvwxyz".chars().take(20).collect();
                s.insert(at, c);
                same(&json!(s));
            }
        }
        // Bytes just above the escapes (0x20, '#', ']', 0x7f) never escape; non-ASCII neither.
        same(&json!(" #]\u{7f}\u{80}é漢字🦀 and \u{2028}\u{2029}"));
        same(&json!(
            "/root/repos/r1/pkg/sub/file_name.go\"\\\n\t\u{1}\u{1f}x".repeat(5)
        ));
        same(&json!(""));
        // Numbers, nesting, order of keys, empty containers.
        same(&json!({
            "b": [1, -2, 0, u64::MAX, i64::MIN, 0.5, 1e300, -0.0, 2.5e-8, 123456.789],
            "a": {"z": null, "y": true, "x": false, "w": [], "v": {}},
            "": [[["deep"]], {"k\"ey\n": "v"}],
        }));
    }

    #[test]
    fn the_word_test_finds_each_escape_in_each_position() {
        for pos in 0..8 {
            for b in 0u8..=255 {
                let mut w = [b'a'; 8];
                w[pos] = b;
                let want = b < 0x20 || b == b'"' || b == b'\\';
                assert_eq!(needs_escape(u64::from_le_bytes(w)), want, "{b:#x} at {pos}");
            }
        }
        // Two bytes that need it, and one that does not beside one that does.
        let w = u64::from_le_bytes(*b"\"\\\x00\x1f \x7f\xff!");
        assert!(needs_escape(w));
        assert!(!needs_escape(u64::from_le_bytes(*b" !#[]\x7f\x80\xff")));
    }
}
