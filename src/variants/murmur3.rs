//! Canonical MurmurHash3_x86_32 (Austin Appleby, public domain).
//!
//! The mergeable filter's contract names this exact function, so
//! replicas in other languages must agree bit for bit: blocks and the tail
//! are read little-endian, whatever the host.

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;
/// Bytes per block.
const BLOCK: usize = 4;

/// The per-block (and tail) key scramble.
#[inline(always)]
fn scramble(k: u32) -> u32 {
    k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

/// The finalizer: forces every input bit to affect every output bit.
#[inline(always)]
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// MurmurHash3_x86_32 of `data` with `seed`.
pub fn murmur3_x86_32(data: &[u8], seed: u32) -> u32 {
    let mut h = seed;
    let mut blocks = data.chunks_exact(BLOCK);
    for block in &mut blocks {
        let k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        h ^= scramble(k);
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        // The tail bytes fill the low end of a little-endian word.
        let k = tail.iter().rev().fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        h ^= scramble(k);
    }
    // The reference mixes in the length as a 32-bit value (mod 2^32).
    fmix32(h ^ data.len() as u32)
}

/// The mergeable filter's hash pair of an item: `h1 = murmur(x, 0)`,
/// `h2 = murmur(x, h1)`.
pub fn hash_pair(data: &[u8]) -> (u32, u32) {
    let h1 = murmur3_x86_32(data, 0);
    (h1, murmur3_x86_32(data, h1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published vectors (the widely cited SMHasher-verified table): every
    /// tail length 0–3, zero and non-zero seeds, multi-byte UTF-8.
    #[test]
    fn published_vectors() {
        let cases: &[(&[u8], u32, u32)] = &[
            (b"", 0, 0),
            (b"", 1, 0x514E_28B7),
            (b"", 0xffff_ffff, 0x81F1_6F39),
            (b"\xff\xff\xff\xff", 0, 0x7629_3B50),
            (b"\x21\x43\x65\x87", 0, 0xF55B_516B),
            (b"\x21\x43\x65\x87", 0x5082_EDEE, 0x2362_F9DE),
            (b"\x21\x43\x65", 0, 0x7E4A_8634),
            (b"\x21\x43", 0, 0xA0F7_B07A),
            (b"\x21", 0, 0x7266_1CF4),
            (b"\0\0\0\0", 0, 0x2362_F9DE),
            (b"\0\0\0", 0, 0x85F0_B427),
            (b"\0\0", 0, 0x30F4_C306),
            (b"\0", 0, 0x514E_28B7),
            (b"aaaa", 0x9747_b28c, 0x5A97_808A),
            (b"aaa", 0x9747_b28c, 0x283E_0130),
            (b"aa", 0x9747_b28c, 0x5D21_1726),
            (b"a", 0x9747_b28c, 0x7FA0_9EA6),
            (b"abcd", 0x9747_b28c, 0xF047_8627),
            (b"abc", 0x9747_b28c, 0xC84A_62DD),
            (b"ab", 0x9747_b28c, 0x7487_5592),
            (b"Hello, world!", 0x9747_b28c, 0x2488_4CBA),
            ("ππππππππ".as_bytes(), 0x9747_b28c, 0xD580_63C1),
            (b"The quick brown fox jumps over the lazy dog", 0x9747_b28c, 0x2FA8_26CD),
            (b"The quick brown fox jumps over the lazy dog", 0, 0x2E4F_F723),
        ];
        for &(data, seed, expected) in cases {
            assert_eq!(murmur3_x86_32(data, seed), expected, "{data:?} seed {seed:#x}");
        }
    }

    #[test]
    fn hash_pair_chains_the_seed() {
        let (h1, h2) = hash_pair(b"alice");
        assert_eq!(h1, murmur3_x86_32(b"alice", 0));
        assert_eq!(h2, murmur3_x86_32(b"alice", h1));
    }
}
