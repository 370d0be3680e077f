//! Helpers for `N × 32` packed digest buffers (the publisher's input).

use crate::probe::DIGEST_LENGTH;

/// Sorts and de-duplicates packed digests: returns the unique digests (in
/// byte order) and how many duplicates were dropped, or `None` when the
/// length is not a multiple of 32. The reference counts `insertedItemCount`
/// as given, so a publisher de-duplicates first to make it an exact unique
/// count (seed 000: "Provide an exact unique count as metadata").
pub fn dedup_packed(packed: &[u8]) -> Option<(Vec<u8>, u64)> {
    if packed.len() % DIGEST_LENGTH != 0 {
        return None;
    }
    let mut digests: Vec<[u8; DIGEST_LENGTH]> = packed
        .chunks_exact(DIGEST_LENGTH)
        .map(|chunk| {
            let mut digest = [0u8; DIGEST_LENGTH];
            digest.copy_from_slice(chunk);
            digest
        })
        .collect();
    let before = digests.len();
    digests.sort_unstable();
    digests.dedup();
    let duplicates = (before - digests.len()) as u64;
    Some((digests.concat(), duplicates))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_duplicates_and_counts_them() {
        let a = [1u8; 32];
        let b = [2u8; 32];
        let packed = [b, a, b, b].concat();
        let (unique, duplicates) = dedup_packed(&packed).unwrap();
        assert_eq!(unique, [a, b].concat());
        assert_eq!(duplicates, 2);
        assert!(dedup_packed(&[0u8; 33]).is_none());
        assert_eq!(dedup_packed(&[]).unwrap(), (vec![], 0));
    }
}
