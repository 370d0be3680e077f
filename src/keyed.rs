//! Hash protocol 2, keyed snapshots (docs/ABF1.md, "Keyed snapshots").
//!
//! A protocol-2 filter places the bits of a digest `d` where protocol 1 would
//! place those of `HMAC-SHA-256(key, d)`: whoever lacks the key cannot tell
//! which bits a digest sets, so a public snapshot answers nothing for them.
//! HMAC (RFC 2104) is written here over the `sha2` crate the formats already
//! use, with both padded key blocks hashed once up front: a query then costs
//! two SHA-256 compressions (one inner block of 32 message bytes, one outer).
//!
//! The key never leaves this type: no field holds it after `new`, `Debug`
//! shows only the key check, and the file stores only the 32-bit key check
//! (`HMAC(key, KEY_CHECK_LABEL)`, first four bytes little-endian) so a loader
//! tells a wrong key from a right one without the key being in the file.

use core::fmt;

use sha2::digest::generic_array::GenericArray;
use sha2::{compress256, Digest, Sha256};

use crate::error::{Coded, Fields};
use crate::probe::DIGEST_LENGTH;

/// The `hashProtocolVersion` of keyed snapshots.
pub const KEYED_HASH_PROTOCOL_VERSION: u16 = 2;
/// Shortest key accepted: 128 bits, so the key check's 32 bits and the
/// filter's bits cannot be brute-forced back to a guessable key.
pub const MINIMUM_KEY_LENGTH: usize = 16;
/// Longest key accepted (a bound on what a caller can make us copy; HMAC
/// hashes any key longer than a block to 32 bytes anyway).
pub const MAXIMUM_KEY_LENGTH: usize = 1024;
/// The message whose MAC is the key check. Longer than 32 bytes, so it is
/// never a digest: the check reveals no digest's probe positions.
pub const KEY_CHECK_LABEL: &[u8] = b"artifact-bloom ABF1 hashProtocolVersion 2 key check";

/// SHA-256's block size, HMAC's `B`.
const BLOCK_LENGTH: usize = 64;

/// SHA-256's initial hash value (FIPS 180-4 §5.3.3).
const SHA256_IV: [u32; 8] =
    [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// A key of the wrong length (the key itself is never part of the error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidKey {
    pub length: usize,
}

impl Coded for InvalidKey {
    fn code(&self) -> &'static str {
        "invalidKey"
    }

    fn domain(&self) -> &'static str {
        "snapshot"
    }

    fn fields(&self, out: &mut dyn Fields) {
        out.integer("minimum", MINIMUM_KEY_LENGTH as u64);
        out.integer("maximum", MAXIMUM_KEY_LENGTH as u64);
        out.integer("got", self.length as u64);
    }
}

crate::error::display_coded!(InvalidKey);

/// An HMAC-SHA-256 key ready to use: the SHA-256 states after the inner and
/// outer padded key blocks, and the key's 32-byte fingerprint (the MAC of
/// [`KEY_CHECK_LABEL`]), whose first four bytes are the file's key check.
///
/// Every message MACed here (a 32-byte digest, the 51-byte label, a 32-byte
/// inner hash) fits with its padding in the one block after the key block,
/// so a MAC is exactly two compressions, with no streaming hasher: the
/// least code in the main wasm, which every page downloads.
#[derive(Clone)]
pub struct SnapshotKey {
    inner: [u32; 8],
    outer: [u32; 8],
    fingerprint: [u8; 32],
}

impl SnapshotKey {
    /// `key` must be 16 to 1024 bytes.
    pub fn new(key: &[u8]) -> Result<SnapshotKey, InvalidKey> {
        if !(MINIMUM_KEY_LENGTH..=MAXIMUM_KEY_LENGTH).contains(&key.len()) {
            return Err(InvalidKey { length: key.len() });
        }
        // RFC 2104: a key longer than a block is replaced by its hash, then
        // zero-padded to a block.
        let mut block = [0u8; BLOCK_LENGTH];
        if key.len() > BLOCK_LENGTH {
            block[..32].copy_from_slice(&crate::hashing::sha256(key));
        } else if let Some(start) = block.get_mut(..key.len()) {
            start.copy_from_slice(key);
        }
        let padded = |pad: u8| -> [u32; 8] {
            let mut words = SHA256_IV;
            compress256(&mut words, core::slice::from_ref(GenericArray::from_slice(&block.map(|byte| byte ^ pad))));
            words
        };
        let mut key = SnapshotKey { inner: padded(0x36), outer: padded(0x5c), fingerprint: [0; 32] };
        block.fill(0);
        key.fingerprint = key.mac_short(KEY_CHECK_LABEL);
        Ok(key)
    }

    /// The probe input of protocol 2 for `digest`: HMAC-SHA-256(key, digest).
    // Not inlined: one copy in the main wasm, whatever calls it.
    #[inline(never)]
    pub fn mac(&self, digest: &[u8; DIGEST_LENGTH]) -> [u8; DIGEST_LENGTH] {
        self.mac_short(digest)
    }

    /// HMAC-SHA-256 of a message of at most [`SHORT_MESSAGE`] bytes.
    fn mac_short(&self, message: &[u8]) -> [u8; 32] {
        let inner = finish_block(self.inner, message);
        finish_block(self.outer, &inner)
    }

    /// The 32-bit key check an ABF1 protocol-2 header stores at offset 28.
    pub fn key_check(&self) -> u32 {
        let [a, b, c, d, ..] = self.fingerprint;
        u32::from_le_bytes([a, b, c, d])
    }

    /// Each packed digest replaced by its MAC, written to `out` (the same
    /// length; a partial trailing record is left as it is).
    #[inline(never)]
    pub fn mac_packed(&self, packed: &[u8], out: &mut [u8]) {
        for (from, to) in packed.chunks_exact(DIGEST_LENGTH).zip(out.chunks_exact_mut(DIGEST_LENGTH)) {
            if let Ok(digest) = <&[u8; DIGEST_LENGTH]>::try_from(from) {
                to.copy_from_slice(&self.mac(digest));
            }
        }
    }
}

/// The longest message that fits, with SHA-256's padding (a 0x80 byte and the
/// 8-byte length), in one block.
const SHORT_MESSAGE: usize = BLOCK_LENGTH - 9;
const _: () = assert!(KEY_CHECK_LABEL.len() <= SHORT_MESSAGE && DIGEST_LENGTH <= SHORT_MESSAGE);

/// SHA-256 of (one block already compressed into `state`) followed by `tail`
/// (at most [`SHORT_MESSAGE`] bytes; longer is cut there, which no caller
/// does): the padded last block, compressed (FIPS 180-4 §5.1.1: 0x80, zeros,
/// the big-endian bit length of everything hashed), as big-endian bytes.
fn finish_block(mut state: [u32; 8], tail: &[u8]) -> [u8; 32] {
    let tail = tail.get(..SHORT_MESSAGE).unwrap_or(tail);
    let mut block = [0u8; BLOCK_LENGTH];
    if let Some(start) = block.get_mut(..tail.len()) {
        start.copy_from_slice(tail);
    }
    block[tail.len()] = 0x80;
    let bits = ((BLOCK_LENGTH + tail.len()) as u64) * 8;
    block[BLOCK_LENGTH - 8..].copy_from_slice(&bits.to_be_bytes());
    compress256(&mut state, core::slice::from_ref(GenericArray::from_slice(&block)));
    let mut out = [0u8; 32];
    for (bytes, word) in out.chunks_exact_mut(4).zip(state) {
        bytes.copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// Two keys are equal when their fingerprints are (the MAC of a fixed label
/// under each): equal keys always are, different ones with probability 2^-256.
impl PartialEq for SnapshotKey {
    fn eq(&self, other: &Self) -> bool {
        self.fingerprint == other.fingerprint
    }
}

/// Shows the key check only: the states would let anyone compute MACs.
impl fmt::Debug for SnapshotKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SnapshotKey").field("key_check", &self.key_check()).finish_non_exhaustive()
    }
}

/// How a filter turns a digest into bit positions.
#[derive(Clone, Debug, PartialEq)]
pub enum Hashing {
    /// Protocol 1: the digest itself.
    Plain,
    /// Protocol 2: its HMAC under the key whose check is `key_check`. `key`
    /// is `None` for a file decoded but not yet given its key
    /// ([`crate::abf1::Snapshot::unlock`]); such a filter answers every
    /// query "maybe" (never a false "absent") and the package never hands
    /// one to a caller.
    Keyed { key_check: u32, key: Option<Box<SnapshotKey>> },
}

impl Hashing {
    /// The header's `hashProtocolVersion` and `reserved` (key check) fields.
    pub fn header_fields(&self) -> (u16, u32) {
        match self {
            Hashing::Plain => (crate::abf1::HASH_PROTOCOL_VERSION, 0),
            Hashing::Keyed { key_check, .. } => (KEYED_HASH_PROTOCOL_VERSION, *key_check),
        }
    }

    /// Protocol-2 hashing with `key`.
    pub fn keyed(key: SnapshotKey) -> Hashing {
        Hashing::Keyed { key_check: key.key_check(), key: Some(Box::new(key)) }
    }
}

/// HMAC-SHA-256 of any message in one call, by the streaming hasher (tests
/// and vectors: an implementation the two-compression path is checked
/// against). Same key rule as [`SnapshotKey::new`].
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> Result<[u8; 32], InvalidKey> {
    if !(MINIMUM_KEY_LENGTH..=MAXIMUM_KEY_LENGTH).contains(&key.len()) {
        return Err(InvalidKey { length: key.len() });
    }
    let mut block = [0u8; BLOCK_LENGTH];
    if key.len() > BLOCK_LENGTH {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else if let Some(start) = block.get_mut(..key.len()) {
        start.copy_from_slice(key);
    }
    let inner = Sha256::new().chain_update(block.map(|byte| byte ^ 0x36)).chain_update(message).finalize();
    Ok(Sha256::new().chain_update(block.map(|byte| byte ^ 0x5c)).chain_update(inner).finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(text: &str) -> Vec<u8> {
        hex::decode(text).unwrap()
    }

    /// RFC 4231 test cases 2 is a 4-byte key (below our minimum); cases 1, 3,
    /// 4, 6 and 7 cover short, block-length-crossing and hashed long keys.
    #[test]
    fn rfc_4231_vectors() {
        let cases: [(Vec<u8>, Vec<u8>, &str); 5] = [
            (vec![0x0b; 20], b"Hi There".to_vec(), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (vec![0xaa; 20], vec![0xdd; 50], "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (
                unhex("0102030405060708090a0b0c0d0e0f10111213141516171819"),
                vec![0xcd; 50],
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
            ),
            (
                vec![0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
            (
                vec![0xaa; 131],
                b"This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".to_vec(),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            ),
        ];
        for (key, message, expected) in cases {
            assert_eq!(hex::encode(hmac_sha256(&key, &message).unwrap()), expected);
        }
    }

    #[test]
    fn key_length_is_bounded() {
        assert_eq!(SnapshotKey::new(&[1; 15]).unwrap_err(), InvalidKey { length: 15 });
        assert_eq!(SnapshotKey::new(&[1; 1025]).unwrap_err(), InvalidKey { length: 1025 });
        assert!(SnapshotKey::new(&[1; 16]).is_ok());
        assert!(SnapshotKey::new(&[1; 1024]).is_ok());
    }

    #[test]
    fn debug_shows_no_key_material() {
        let key = SnapshotKey::new(b"0123456789abcdef-secret").unwrap();
        let shown = format!("{:?}", Hashing::keyed(key.clone()));
        assert!(shown.contains(&key.key_check().to_string()));
        assert!(!shown.contains("secret") && !shown.contains("inner") && !shown.contains("0123"));
    }

    #[test]
    fn the_fast_path_is_hmac() {
        for length in [16usize, 31, 64, 65, 200] {
            let key_bytes: Vec<u8> = (0..length).map(|i| (i * 7 + length) as u8).collect();
            let key = SnapshotKey::new(&key_bytes).unwrap();
            for seed in 0..50u8 {
                let digest: [u8; 32] = Sha256::digest([seed]).into();
                assert_eq!(key.mac(&digest), hmac_sha256(&key_bytes, &digest).unwrap(), "key length {length}");
            }
            let label = hmac_sha256(&key_bytes, KEY_CHECK_LABEL).unwrap();
            assert_eq!(key.key_check(), u32::from_le_bytes([label[0], label[1], label[2], label[3]]));
        }
    }

    #[test]
    fn mac_packed_equals_one_by_one() {
        let key = SnapshotKey::new(&[7; 32]).unwrap();
        let packed: Vec<u8> = (0..96u8).collect();
        let mut out = vec![0; 96];
        key.mac_packed(&packed, &mut out);
        for (index, record) in out.chunks_exact(32).enumerate() {
            let digest: [u8; 32] = packed[index * 32..index * 32 + 32].try_into().unwrap();
            assert_eq!(record, key.mac(&digest));
        }
    }
}
