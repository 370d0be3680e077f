//! Helpers for `N × 32` packed digest buffers (the publisher's input).

use crate::fallible::{self, OutOfMemory};
use crate::probe::DIGEST_LENGTH;

/// A digest's hash: all four words folded in and multiplied (Fibonacci
/// hashing), so digests that share a prefix (not SHA-256 output, but
/// accepted) still spread out.
fn hash_of(digest: &[u8]) -> u64 {
    let mut hash = 0u64;
    for word in digest.chunks_exact(8) {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        hash = (hash ^ u64::from_le_bytes(bytes)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    hash
}

/// De-duplicates packed digests: returns the unique digests (first-seen
/// order) and how many duplicates were dropped, or `None` when the length is
/// not a multiple of 32 (`Some(Err)` when the set, 16–32 bytes per digest,
/// and the output, the input's size, cannot be reserved). The reference counts `insertedItemCount`
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
    // An open-addressing set, at most half full, probed linearly: a few
    // hundred bytes of wasm where std's HashSet links hashbrown (3.4 KiB),
    // and 8 bytes a slot instead of a copy of every 32-byte digest. A slot
    // holds the digest's number (index + 1; 0 is an empty slot) in its low
    // half and the high half of its hash as a tag, so a probe reads the
    // digest itself only when the tags agree.
    let too_many = || OutOfMemory::of::<u64>(count.saturating_mul(2));
    if count >= u32::MAX as usize {
        return Err(too_many());
    }
    let slot_count = count.checked_mul(2).and_then(usize::checked_next_power_of_two).ok_or_else(too_many)?;
    let mut slots: Vec<u64> = fallible::zeroed_words(slot_count)?;
    let mask = slot_count - 1;
    // The hash's top `bits` pick the first slot (the high bits are the
    // well-mixed ones), the next 32 are the tag. Below 64: count < 2^32.
    let bits = slot_count.trailing_zeros();
    let mut unique = fallible::with_capacity(packed.len())?;
    for (number, digest) in (1u64..).zip(packed.chunks_exact(DIGEST_LENGTH)) {
        let hash = hash_of(digest);
        let tag = (hash << bits) & 0xFFFF_FFFF_0000_0000;
        let mut slot = (hash.checked_shr(64 - bits).unwrap_or(0)) as usize & mask;
        // Terminates: the table always has empty slots (count < slot_count).
        while let Some(entry) = slots.get_mut(slot) {
            if *entry == 0 {
                *entry = tag | number;
                unique.extend_from_slice(digest);
                break;
            }
            if *entry & 0xFFFF_FFFF_0000_0000 == tag {
                // Numbers are below 2^32 (checked above) and name earlier digests.
                let seen = (*entry & 0xFFFF_FFFF) as usize - 1;
                if packed.get(seen * DIGEST_LENGTH..(seen + 1) * DIGEST_LENGTH) == Some(digest) {
                    break;
                }
            }
            slot = (slot + 1) & mask;
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

    /// The reference: std's HashSet, first-seen order.
    fn reference(packed: &[u8]) -> (Vec<u8>, u64) {
        let mut seen = std::collections::HashSet::new();
        let mut unique = Vec::new();
        for chunk in packed.chunks_exact(32) {
            if seen.insert(chunk) {
                unique.extend_from_slice(chunk);
            }
        }
        let duplicates = (packed.len() - unique.len()) / 32;
        (unique, duplicates as u64)
    }

    #[test]
    fn equals_a_hash_set_on_repeats_and_shared_prefixes() {
        // Digests from a small alphabet (so the table sees long probe runs and
        // many repeats) and digests differing only in their last byte.
        for (count, alphabet) in [(1usize, 1u32), (2, 2), (7, 3), (100, 10), (1000, 300), (5000, 5000)] {
            let mut packed = Vec::new();
            let mut state = 0x2545_F491_4F6C_DD1Du64;
            for _ in 0..count {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let pick = (state % u64::from(alphabet)) as u32;
                let mut digest = [0x5au8; 32];
                digest[28..].copy_from_slice(&pick.to_le_bytes());
                packed.extend_from_slice(&digest);
            }
            assert_eq!(dedup_packed(&packed).unwrap().unwrap(), reference(&packed), "{count} of {alphabet}");
        }
    }
}
