//! Helpers for `N × 32` packed digest buffers (the publisher's input).

use crate::fallible::{self, OutOfMemory};
use crate::probe::DIGEST_LENGTH;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes a SHA-256 digest by its first eight bytes: they are already
/// uniformly distributed, so no mixing is needed. (A generic sort or SipHash
/// would cost tens of KiB of wasm for the same job.)
#[derive(Default)]
struct DigestPrefixHasher(u64);

impl Hasher for DigestPrefixHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // `[u8; 32]` hashes as one 32-byte write; fold anything else in too so
        // the hasher stays correct for any input.
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = self.0.rotate_left(5) ^ u64::from_le_bytes(word);
            if bytes.len() == DIGEST_LENGTH {
                break;
            }
        }
    }
}

/// De-duplicates packed digests: returns the unique digests (first-seen
/// order) and how many duplicates were dropped, or `None` when the length is
/// not a multiple of 32 (`Some(Err)` when the set and the output, about twice
/// the input, cannot be reserved). The reference counts `insertedItemCount`
/// as given, so a publisher de-duplicates first to make it an exact unique
/// count (the catalog design: "Provide an exact unique count as metadata").
pub fn dedup_packed(packed: &[u8]) -> Option<Result<(Vec<u8>, u64), OutOfMemory>> {
    if packed.len() % DIGEST_LENGTH != 0 {
        return None;
    }
    Some(dedup_whole_digests(packed))
}

fn dedup_whole_digests(packed: &[u8]) -> Result<(Vec<u8>, u64), OutOfMemory> {
    let count = packed.len() / DIGEST_LENGTH;
    let mut seen: HashSet<[u8; DIGEST_LENGTH], BuildHasherDefault<DigestPrefixHasher>> = HashSet::default();
    seen.try_reserve(count).map_err(|_| OutOfMemory::of::<[u8; DIGEST_LENGTH]>(count))?;
    let mut unique = fallible::with_capacity(packed.len())?;
    for chunk in packed.chunks_exact(DIGEST_LENGTH) {
        let mut digest = [0u8; DIGEST_LENGTH];
        digest.copy_from_slice(chunk);
        if seen.insert(digest) {
            unique.extend_from_slice(chunk);
        }
    }
    let duplicates = (count - unique.len() / DIGEST_LENGTH) as u64;
    Ok((unique, duplicates))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_duplicates_and_counts_them() {
        let a = [1u8; 32];
        let b = [2u8; 32];
        let packed = [b, a, b, b].concat();
        let (unique, duplicates) = dedup_packed(&packed).unwrap().unwrap();
        assert_eq!(unique, [b, a].concat());
        assert_eq!(duplicates, 2);
        assert!(dedup_packed(&[0u8; 33]).is_none());
        assert_eq!(dedup_packed(&[]).unwrap(), Ok((vec![], 0)));
    }

    #[test]
    fn digests_sharing_a_prefix_stay_distinct() {
        let mut a = [7u8; 32];
        let b = [7u8; 32];
        a[31] = 8;
        let (unique, duplicates) = dedup_packed(&[a, b, a].concat()).unwrap().unwrap();
        assert_eq!((unique.len() / 32, duplicates), (2, 1));
    }
}
