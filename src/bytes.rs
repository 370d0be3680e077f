//! Little-endian readers for the decoders of fixed-layout formats. The callers
//! check lengths first (`at + width <= len`), so a read here never fails;
//! slicing out of range would be a bug in that check, not in the input.

/// A little-endian u32 at `at`; the caller checked `at + 4 ≤ len`.
pub(crate) fn read_u32(bytes: &[u8], at: usize) -> u32 {
    let mut raw = [0u8; 4];
    raw.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(raw)
}

/// A little-endian u64 at `at`; the caller checked `at + 8 ≤ len`.
pub(crate) fn read_u64(bytes: &[u8], at: usize) -> u64 {
    let mut raw = [0u8; 8];
    raw.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(raw)
}
