//! Host tests: streams from liblzma (the `xz2` dev-dependency, the encoder
//! of Debian's `xz --format=lzma`) decode to their input, and each `Error`
//! code comes from the damage it names.

mod errors;
mod round_trip;

use super::{decode, Error, PROBABILITIES_MAX};
use std::io::Write;
use xz2::stream::{LzmaOptions, Stream};
use xz2::write::XzEncoder;

/// Where the header states the decoded size (8 bytes, little-endian).
const SIZE_FIELD: core::ops::Range<usize> = 5..13;

/// `data` as a `.lzma` stream from liblzma with `options`, its header stating
/// the size the way the package's streams do.
fn compress_with(data: &[u8], options: &LzmaOptions) -> Vec<u8> {
    let stream = Stream::new_lzma_encoder(options).expect("liblzma takes the options");
    let mut encoder = XzEncoder::new_stream(Vec::new(), stream);
    encoder.write_all(data).expect("compressing into memory");
    let mut packed = encoder.finish().expect("compressing into memory");
    // liblzma's `.lzma` encoder states the size as unknown (all ones) and
    // ends the data with the end marker.
    assert_eq!(packed[SIZE_FIELD], [0xFF; 8]);
    state_size(&mut packed, data.len() as u64);
    packed
}

/// `data` compressed at liblzma's preset 6 (`xz`'s default: lc 3, lp 0, pb 2).
fn compress(data: &[u8]) -> Vec<u8> {
    compress_with(data, &LzmaOptions::new_preset(6).expect("preset 6 exists"))
}

fn state_size(stream: &mut [u8], size: u64) {
    stream[SIZE_FIELD].copy_from_slice(&size.to_le_bytes());
}

/// Decodes `input` into `size` bytes with a table of `PROBABILITIES_MAX`.
fn unpack(input: &[u8], size: usize) -> Result<Vec<u8>, Error> {
    let mut out = vec![0; size];
    let mut probabilities = vec![0; PROBABILITIES_MAX];
    decode(input, &mut out, &mut probabilities)?;
    Ok(out)
}

/// A 13-byte header: `properties`, a 1 MiB dictionary, `size`.
fn header(properties: u8, size: u64) -> Vec<u8> {
    let mut header = vec![properties];
    header.extend_from_slice(&(1u32 << 20).to_le_bytes());
    header.extend_from_slice(&size.to_le_bytes());
    header
}

/// The properties byte for `lc`, `lp` and `pb`.
fn properties(lc: u8, lp: u8, pb: u8) -> u8 {
    (pb * 5 + lp) * 9 + lc
}

/// Deterministic pseudo-random bytes (xorshift64), so every run tests the
/// same streams.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn bytes(&mut self, length: usize) -> Vec<u8> {
        (0..length).map(|_| self.next() as u8).collect()
    }
}

/// Words from a small vocabulary with a stray byte now and then: the repeats
/// at a few recent distances that LZMA codes as "rep" matches, and literals
/// right after matches.
fn prose(length: usize, seed: u64) -> Vec<u8> {
    const WORDS: [&[u8]; 12] = [
        b"bloom ",
        b"filter ",
        b"artifact ",
        b"wasm ",
        b"the ",
        b"of ",
        b"hash, ",
        b"bits\n",
        b"k=7 ",
        b"0x5d ",
        b"decoder ",
        b"range ",
    ];
    let mut noise = Noise(seed);
    let mut text = Vec::with_capacity(length + 16);
    while text.len() < length {
        let roll = noise.next();
        if roll.is_multiple_of(9) {
            text.push((roll >> 8) as u8);
        } else {
            text.extend_from_slice(WORDS[(roll >> 16) as usize % WORDS.len()]);
        }
    }
    text.truncate(length);
    text
}
