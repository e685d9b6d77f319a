//! Page cursors, format version 2: base64url without padding over
//!
//! ```text
//! version (1 byte, 2) | snapshot id (LEB128) | row offset (LEB128, ≤ 2^31-1)
//! | query identity digest (8 bytes) | sorting contract digest (4 bytes) | checksum (8 bytes)
//! ```
//!
//! Digests are the leading bytes of SHA-256; the checksum covers every preceding byte. Decoding
//! is strict: canonical varints, exact length, no trailing bytes.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use crate::error::{ErrorCode, ToolError};

const VERSION: u8 = 2;
const MAX_LEN: usize = 64;

fn sha(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn get_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..10 {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            // Canonical: no redundant trailing zero group.
            if i > 0 && b == 0 {
                return None;
            }
            return Some(v);
        }
    }
    None
}

/// Identity of a query: the tool and every argument that changes membership or order.
pub fn identity_digest(identity: &serde_json::Value) -> [u8; 8] {
    let d = sha(serde_json::to_string(identity)
        .unwrap_or_default()
        .as_bytes());
    d[..8].try_into().unwrap()
}

fn sort_digest(contract: &str) -> [u8; 4] {
    sha(contract.as_bytes())[..4].try_into().unwrap()
}

pub fn encode(snapshot: u64, offset: u64, identity: &serde_json::Value, contract: &str) -> String {
    let mut body = vec![VERSION];
    put_varint(&mut body, snapshot);
    put_varint(&mut body, offset);
    body.extend_from_slice(&identity_digest(identity));
    body.extend_from_slice(&sort_digest(contract));
    let check = sha(&body);
    body.extend_from_slice(&check[..8]);
    URL_SAFE_NO_PAD.encode(body)
}

/// Decodes a cursor for the active query and returns its row offset.
pub fn decode(
    token: &str,
    snapshot: u64,
    identity: &serde_json::Value,
    contract: &str,
) -> Result<u64, ToolError> {
    let invalid = |why: &str| {
        ToolError::new(
            ErrorCode::CursorInvalid,
            format!("cursor is not valid: {why}"),
        )
    };
    if token.is_empty() || token.len() > MAX_LEN {
        return Err(invalid("wrong length"));
    }
    let body = URL_SAFE_NO_PAD
        .decode(token)
        .map_err(|_| invalid("not base64url without padding"))?;
    if URL_SAFE_NO_PAD.encode(&body) != token {
        return Err(invalid("not canonically encoded"));
    }
    if body.first() != Some(&VERSION) {
        return Err(invalid("unsupported cursor version"));
    }
    let mut pos = 1;
    let snap = get_varint(&body, &mut pos).ok_or_else(|| invalid("malformed snapshot id"))?;
    let offset = get_varint(&body, &mut pos).ok_or_else(|| invalid("malformed offset"))?;
    if offset > (1 << 31) - 1 {
        return Err(invalid("offset out of range"));
    }
    if body.len() != pos + 8 + 4 + 8 {
        return Err(invalid("wrong length"));
    }
    let check = sha(&body[..pos + 12]);
    if body[pos + 12..] != check[..8] {
        return Err(invalid("checksum mismatch"));
    }
    if snap != snapshot {
        return Err(ToolError::new(
            ErrorCode::CursorSnapshotExpired,
            format!(
                "cursor was taken against snapshot {snap}, the published snapshot is {snapshot}; start the query again from page one"
            ),
        ));
    }
    if body[pos..pos + 8] != identity_digest(identity)
        || body[pos + 8..pos + 12] != sort_digest(contract)
    {
        return Err(ToolError::new(
            ErrorCode::CursorInvalid,
            "cursor does not match the active query",
        ));
    }
    Ok(offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_and_rejections() {
        let id = json!({"tool": "find_symbol", "name": "Area"});
        let c = encode(30, 3, &id, "stable-key-v1");
        assert!(c.len() <= 32, "{c}");
        assert!(c.starts_with('A'));
        assert_eq!(decode(&c, 30, &id, "stable-key-v1").unwrap(), 3);
        assert_eq!(
            decode(&c, 31, &id, "stable-key-v1").unwrap_err().code,
            ErrorCode::CursorSnapshotExpired.as_str()
        );
        assert_eq!(
            decode(
                &c,
                30,
                &json!({"tool": "find_symbol", "name": "B"}),
                "stable-key-v1"
            )
            .unwrap_err()
            .code,
            ErrorCode::CursorInvalid.as_str()
        );
        assert_eq!(
            decode(&c, 30, &id, "stable-key-v2").unwrap_err().code,
            ErrorCode::CursorInvalid.as_str()
        );
        // Edited, truncated, trailing bytes, version 1.
        let mut body = URL_SAFE_NO_PAD.decode(&c).unwrap();
        for bad in [
            {
                let mut b = body.clone();
                b[3] ^= 1;
                b
            },
            body[..body.len() - 1].to_vec(),
            [body.clone(), vec![0]].concat(),
        ] {
            assert_eq!(
                decode(&URL_SAFE_NO_PAD.encode(bad), 30, &id, "stable-key-v1")
                    .unwrap_err()
                    .code,
                ErrorCode::CursorInvalid.as_str()
            );
        }
        body[0] = 1;
        assert_eq!(
            decode(&URL_SAFE_NO_PAD.encode(&body), 30, &id, "stable-key-v1")
                .unwrap_err()
                .code,
            ErrorCode::CursorInvalid.as_str()
        );
        assert_eq!(
            decode(&format!("{c}="), 30, &id, "stable-key-v1")
                .unwrap_err()
                .code,
            ErrorCode::CursorInvalid.as_str()
        );
    }

    /// Arbitrary strings, arbitrary bodies and every single-bit edit of a real cursor: decoding
    /// never panics and accepts nothing but the cursor as issued.
    #[test]
    fn arbitrary_tokens_are_refused_without_panicking() {
        let id = json!({"tool": "find_references", "name": "Area"});
        let good = encode(7, 120, &id, "stable-key-v1");
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ .%\xff";
        let mut refused = 0;
        for _ in 0..20_000 {
            let len = (next() % 80) as usize;
            let token: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char)
                .collect();
            let body: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            for t in [token, URL_SAFE_NO_PAD.encode(&body)] {
                if t != good {
                    assert!(decode(&t, 7, &id, "stable-key-v1").is_err(), "{t}");
                    refused += 1;
                }
            }
        }
        let body = URL_SAFE_NO_PAD.decode(&good).unwrap();
        for bit in 0..body.len() * 8 {
            let mut b = body.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            assert!(decode(&URL_SAFE_NO_PAD.encode(&b), 7, &id, "stable-key-v1").is_err());
            refused += 1;
        }
        assert!(refused > 40_000, "{refused}");
        assert_eq!(decode(&good, 7, &id, "stable-key-v1").unwrap(), 120);
    }
}
