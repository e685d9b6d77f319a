//! `file_symbols.bin`: each file's symbols (SPEC 7.8), so that a file's or a directory's outline
//! reads only its own symbols.
//!
//! Layout, little-endian: the magic `KGFSYM01`, the number of files `n` and of entries `m`
//! (`u32` each), `n + 1` offsets (`u32`, non-decreasing, the last `m`), then `m` symbol ids
//! (`u32`): file `f`'s symbols are `ids[offsets[f]..offsets[f + 1]]`, in increasing id order.
//! Opening checks the header and the length; each read checks the offsets it uses, and a reader
//! checks that each id it is given is a symbol of that file.

use crate::error::FormatError;

pub const FILE_SYMBOLS: &str = "file_symbols.bin";
const MAGIC: &[u8; 8] = b"KGFSYM01";
const HEADER: usize = 16;

/// Encodes the index of `n_files` files from the file of each symbol, in symbol-id order.
pub fn encode(n_files: usize, file_of_symbol: &[u32]) -> Vec<u8> {
    let mut counts = vec![0u32; n_files + 1];
    for &f in file_of_symbol {
        counts[f as usize + 1] += 1;
    }
    for i in 0..n_files {
        counts[i + 1] += counts[i];
    }
    let mut next = counts.clone();
    let mut ids = vec![0u32; file_of_symbol.len()];
    for (id, &f) in file_of_symbol.iter().enumerate() {
        ids[next[f as usize] as usize] = id as u32;
        next[f as usize] += 1;
    }
    let mut out = Vec::with_capacity(HEADER + 4 * (counts.len() + ids.len()));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(n_files as u32).to_le_bytes());
    out.extend_from_slice(&(ids.len() as u32).to_le_bytes());
    for c in counts {
        out.extend_from_slice(&c.to_le_bytes());
    }
    for id in ids {
        out.extend_from_slice(&id.to_le_bytes());
    }
    out
}

/// A checked view of the index.
#[derive(Debug, Clone, Copy)]
pub struct FileSymbols<'a> {
    bytes: &'a [u8],
    files: u32,
    entries: u32,
}

fn bad(what: impl Into<String>) -> FormatError {
    FormatError::corrupt(FILE_SYMBOLS, what)
}

fn word(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

impl<'a> FileSymbols<'a> {
    /// Checks the header and the length against a generation of `files` files and `symbols`
    /// symbols.
    pub fn parse(bytes: &'a [u8], files: usize, symbols: usize) -> Result<Self, FormatError> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err(bad("bad magic or short header"));
        }
        let n = word(bytes, 8).unwrap_or(0);
        let m = word(bytes, 12).unwrap_or(0);
        if n as usize != files || m as usize != symbols {
            return Err(bad(format!(
                "indexes {n} files and {m} symbols; the generation has {files} and {symbols}"
            )));
        }
        let want = HEADER as u64 + 4 * (u64::from(n) + 1 + u64::from(m));
        if bytes.len() as u64 != want {
            return Err(bad(format!("is {} bytes, not {want}", bytes.len())));
        }
        Ok(FileSymbols {
            bytes,
            files: n,
            entries: m,
        })
    }

    /// The symbol ids of file `file`, after checking the offsets they lie between.
    pub fn of(&self, file: u32) -> Result<impl Iterator<Item = u32> + 'a, FormatError> {
        if file >= self.files {
            return Err(bad(format!("no file {file}")));
        }
        let at = HEADER + 4 * file as usize;
        let (a, b) = (word(self.bytes, at), word(self.bytes, at + 4));
        let (Some(a), Some(b)) = (a, b) else {
            return Err(bad("offsets cut short"));
        };
        if a > b || b > self.entries {
            return Err(bad(format!(
                "offsets {a}..{b} of file {file} are out of order"
            )));
        }
        let base = HEADER + 4 * (self.files as usize + 1);
        let bytes = self.bytes;
        Ok((a..b).map(move |i| word(bytes, base + 4 * i as usize).unwrap_or(u32::MAX)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_lists_its_symbols_in_id_order() {
        let bytes = encode(3, &[2, 0, 2, 0, 1]);
        let idx = FileSymbols::parse(&bytes, 3, 5).unwrap();
        let of = |f| idx.of(f).unwrap().collect::<Vec<_>>();
        assert_eq!((of(0), of(1), of(2)), (vec![1, 3], vec![4], vec![0, 2]));
        assert!(idx.of(3).is_err());
        assert!(FileSymbols::parse(&bytes, 4, 5).is_err());
        assert!(FileSymbols::parse(&bytes[..bytes.len() - 1], 3, 5).is_err());
        let mut swapped = bytes.clone();
        // File 1's offsets out of order.
        swapped[HEADER + 4..HEADER + 8].copy_from_slice(&9u32.to_le_bytes());
        let idx = FileSymbols::parse(&swapped, 3, 5).unwrap();
        assert!(idx.of(0).is_err() && idx.of(1).is_err());
    }
}
