//! A streaming XXH3 digest fed through a buffer.
//!
//! A digest over many small values (a column chunk's numbers, each symbol's names) spent more
//! time in the hash's per-call bookkeeping than in hashing when each value was given to it
//! alone. [`Feed`] gathers the bytes and hands them over a buffer at a time. A streaming hash
//! digests the concatenation of what it is given, however it was split, so the digest is the
//! one the value-by-value calls gave.

use xxhash_rust::xxh3::Xxh3;

/// How many bytes are gathered before they are hashed.
const BUFFER: usize = 16 << 10;

/// An XXH3 digest whose input is gathered in a buffer.
pub struct Feed {
    h: Xxh3,
    buf: Vec<u8>,
}

impl Default for Feed {
    fn default() -> Self {
        Self::new()
    }
}

impl Feed {
    pub fn new() -> Self {
        Feed {
            h: Xxh3::new(),
            buf: Vec::with_capacity(BUFFER),
        }
    }

    /// Appends `bytes` to the input.
    #[inline]
    pub fn put(&mut self, bytes: &[u8]) {
        if self.buf.len() + bytes.len() > BUFFER {
            self.flush();
            if bytes.len() > BUFFER {
                self.h.update(bytes);
                return;
            }
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Appends `bytes` after their length (eight bytes, little-endian), so that no two lists
    /// of fields give the same input.
    #[inline]
    pub fn field(&mut self, bytes: &[u8]) {
        self.put(&(bytes.len() as u64).to_le_bytes());
        self.put(bytes);
    }

    fn flush(&mut self) {
        self.h.update(&self.buf);
        self.buf.clear();
    }

    /// The 128-bit digest of everything appended.
    pub fn digest128(mut self) -> u128 {
        self.flush();
        self.h.digest128()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_that_of_the_concatenated_input_however_it_was_given() {
        // Pieces of every size around the buffer's, so that flushes fall everywhere.
        let sizes = [
            0usize,
            1,
            3,
            8,
            100,
            BUFFER - 1,
            BUFFER,
            BUFFER + 1,
            7,
            3 * BUFFER,
            2,
        ];
        let mut all = Vec::new();
        let mut feed = Feed::new();
        let mut one_by_one = Xxh3::new();
        for (i, &n) in sizes.iter().enumerate() {
            let piece: Vec<u8> = (0..n).map(|k| (k * 31 + i) as u8).collect();
            feed.put(&piece);
            one_by_one.update(&piece);
            all.extend_from_slice(&piece);
        }
        let want = xxhash_rust::xxh3::xxh3_128(&all);
        assert_eq!(one_by_one.digest128(), want);
        assert_eq!(feed.digest128(), want);
        // A field is its length, then its bytes.
        let mut a = Feed::new();
        a.field(b"ab");
        let mut b = Feed::new();
        b.put(&2u64.to_le_bytes());
        b.put(b"ab");
        assert_eq!(a.digest128(), b.digest128());
    }
}
