//! Decoding a cached value: long vectors at their length, bounded by the entry's size.

use serde::de::DeserializeOwned;

thread_local! {
    /// The size of the payload this thread is decoding: no sequence in it can be longer.
    static DECODE_BOUND: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Decodes a checked entry's payload, with [`exact_vec`] bounded by its size.
pub(super) fn decode<P: DeserializeOwned>(payload: &[u8]) -> Option<P> {
    /// Puts the bound of an enclosing decode back, also when decoding panics.
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            DECODE_BOUND.set(self.0);
        }
    }
    let _restore = Restore(DECODE_BOUND.replace(payload.len()));
    postcard::from_bytes::<P>(payload).ok()
}

/// Decodes a long vector of a cached value at its length in one allocation, for
/// `#[serde(deserialize_with)]`. serde's own `Vec` decoding reserves at most 1 MiB ahead and
/// grows by doubling after that: the standard library's kept references (hundreds of thousands
/// of edges) were copied four times over and made about a fifth of an edit's page faults. The
/// reservation is bounded by the payload's size in elements (each element takes at least one
/// byte of it), so a false length reserves at most that many elements, never what it claims.
pub(crate) fn exact_vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    struct Exact<T>(std::marker::PhantomData<T>);
    impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Exact<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let bound = DECODE_BOUND.get();
            let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(bound));
            while let Some(x) = seq.next_element()? {
                v.push(x);
            }
            Ok(v)
        }
    }
    d.deserialize_seq(Exact(std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Long {
        #[serde(deserialize_with = "exact_vec")]
        v: Vec<u64>,
        tail: u8,
    }

    #[test]
    fn a_long_vector_is_read_back_in_one_allocation_and_a_false_length_asks_for_no_more_than_the_entry()
     {
        let long = Long {
            v: (0..300_000u64).map(|i| i * 7919).collect(),
            tail: 9,
        };
        let read = decode::<Long>(&postcard::to_allocvec(&long).unwrap()).expect("read back");
        assert_eq!(read, long);
        // serde's own decoding reserves 1 MiB ahead and doubles after that.
        assert_eq!(read.v.capacity(), read.v.len());
        // A length of 2^40 elements in a payload of a few bytes: an error, and the reservation
        // is bounded by the payload (a reservation at the length would abort the process).
        let mut forged = Vec::new();
        let mut n: u64 = 1 << 40;
        while n >= 0x80 {
            forged.push((n as u8) | 0x80);
            n >>= 7;
        }
        forged.push(n as u8);
        forged.extend_from_slice(&[1, 2, 3]);
        assert_eq!(decode::<Long>(&forged), None);
        // Outside a cache read there is no bound: nothing is reserved ahead.
        let bytes = postcard::to_allocvec(&long).unwrap();
        let plain: Long = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(plain, long);
    }
}
