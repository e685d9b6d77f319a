//! The bytes of the extraction cache (SPEC 1.9): an entry (a checked header, then the payload)
//! and a pack's index and footer.

use std::fs;
use std::os::unix::fs::FileExt;

use xxhash_rust::xxh3::xxh3_64;

const MAGIC: &[u8; 8] = b"KGXCACHE";
const FORMAT: u32 = 1;
/// Magic, format, reserved, key digest, payload length, payload checksum.
pub(super) const HEADER: usize = 8 + 4 + 4 + 16 + 8 + 8;
/// The last bytes of a pack: the index's offset, its rows, its XXH3-64, and this magic.
const PACK_MAGIC: &[u8; 8] = b"KGXPACK1";
pub(super) const FOOTER: usize = 8 + 8 + 8 + 8;
/// An index row: the entry's digest, offset and length (header included).
pub(super) const ROW: usize = 16 + 8 + 8;
/// A row of a pack's index: digest, offset, length.
type IndexRow = (u128, u64, u64);

/// An entry: the header, then the payload.
pub(super) fn entry_bytes(digest: u128, payload: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    bytes.extend_from_slice(&0u32.to_le_bytes());
    bytes.extend_from_slice(&digest.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&xxh3_64(payload).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// Appends the index row of `entry` (as [`entry_bytes`] made it), written at `offset`.
pub(super) fn index_row(index: &mut Vec<u8>, entry: &[u8], offset: u64) {
    index.extend_from_slice(&entry[16..32]);
    index.extend_from_slice(&offset.to_le_bytes());
    index.extend_from_slice(&(entry.len() as u64).to_le_bytes());
}

/// The footer of a pack whose `index` (of `rows` rows) starts at `at`.
pub(super) fn footer(index: &[u8], at: u64, rows: u64) -> [u8; FOOTER] {
    let mut out = [0u8; FOOTER];
    out[..8].copy_from_slice(&at.to_le_bytes());
    out[8..16].copy_from_slice(&rows.to_le_bytes());
    out[16..24].copy_from_slice(&xxh3_64(index).to_le_bytes());
    out[24..].copy_from_slice(PACK_MAGIC);
    out
}

/// The payload of an entry read for `digest`, when its header and checksum check.
pub(super) fn check_entry(bytes: &[u8], digest: u128) -> Option<&[u8]> {
    if bytes.len() < HEADER
        || &bytes[..8] != MAGIC
        || bytes[8..12] != FORMAT.to_le_bytes()
        || bytes[12..16] != [0; 4]
        || bytes[16..32] != digest.to_le_bytes()
    {
        return None;
    }
    let len = u64::from_le_bytes(bytes[32..40].try_into().expect("8 bytes"));
    let sum = u64::from_le_bytes(bytes[40..48].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER..];
    (len == payload.len() as u64 && xxh3_64(payload) == sum).then_some(payload)
}

/// A pack's size and index rows, when its footer and index check and every row lies before the
/// index.
pub(super) fn read_index(file: &fs::File) -> Option<(u64, Vec<IndexRow>)> {
    let size = file.metadata().ok()?.len();
    if size < FOOTER as u64 {
        return None;
    }
    let mut footer = [0u8; FOOTER];
    file.read_exact_at(&mut footer, size - FOOTER as u64).ok()?;
    if &footer[24..32] != PACK_MAGIC {
        return None;
    }
    let word = |i: usize| u64::from_le_bytes(footer[i * 8..i * 8 + 8].try_into().expect("8"));
    let (at, rows, sum) = (word(0), word(1), word(2));
    let index_len = rows.checked_mul(ROW as u64)?;
    if at.checked_add(index_len)?.checked_add(FOOTER as u64)? != size {
        return None;
    }
    let mut index = vec![0u8; index_len as usize];
    file.read_exact_at(&mut index, at).ok()?;
    if xxh3_64(&index) != sum {
        return None;
    }
    let mut out = Vec::with_capacity(rows as usize);
    for row in index.chunks_exact(ROW) {
        let digest = u128::from_le_bytes(row[..16].try_into().expect("16"));
        let offset = u64::from_le_bytes(row[16..24].try_into().expect("8"));
        let len = u64::from_le_bytes(row[24..32].try_into().expect("8"));
        if offset.checked_add(len)? > at || len < HEADER as u64 {
            return None;
        }
        out.push((digest, offset, len));
    }
    Some((size, out))
}
