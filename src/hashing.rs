//! SHA-256 helpers shared by the formats and the binding.

use sha2::{Digest, Sha256};

/// Bytes handed to the SHA-256 compression function per call.
const PIECE: usize = 64 * 1024;

/// Feeds `bytes` to `hasher` in 64 KiB pieces.
///
/// Why: V8 moves a wasm function to optimized code only between calls. One
/// `update` over a 120 MB payload runs the whole compression loop inside a
/// single call of `compress256`, which then never leaves baseline code and
/// hashes about 10× slower. Pieces make it return often enough to tier up;
/// natively the split costs nothing measurable.
pub fn update_in_pieces(hasher: &mut Sha256, bytes: &[u8]) {
    for piece in bytes.chunks(PIECE) {
        hasher.update(piece);
    }
}

/// One-shot SHA-256, fed in pieces (see [`update_in_pieces`]).
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    update_in_pieces(&mut hasher, bytes);
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_do_not_change_the_digest() {
        let bytes: Vec<u8> = (0..(3 * PIECE + 17)).map(|i| (i * 31 % 251) as u8).collect();
        let whole: [u8; 32] = Sha256::digest(&bytes).into();
        assert_eq!(sha256(&bytes), whole);
        assert_eq!(sha256(&[]), <[u8; 32]>::from(Sha256::digest([])));
    }
}
