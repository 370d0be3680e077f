//! Each `Error` code, from the damage it names; and damage anywhere in a
//! stream is a code or other bytes, never a panic.

use super::super::{decode, Error, LITERALS, LITERAL_CODER};
use super::{compress, header, properties, prose, state_size, unpack, Noise, SIZE_FIELD};

/// The header's properties byte for xz's defaults (lc 3, lp 0, pb 2).
const DEFAULTS: u8 = 0x5D;

#[test]
fn codes_are_the_ones_wasm_bytes_js_names() {
    // `REASONS` in pkg-template/lib/wasm-bytes.js is indexed by these.
    let codes = [
        Error::Truncated,
        Error::Properties,
        Error::Size,
        Error::FirstByte,
        Error::Distance,
        Error::Overrun,
        Error::EndMarker,
    ];
    assert_eq!(codes.map(|code| code as u32), [1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn input_shorter_than_header_and_range_coder_is_truncated() {
    let shortest = [header(DEFAULTS, 0), vec![0; 5]].concat();
    for length in [0, 1, 12, 13, 17] {
        assert_eq!(unpack(&shortest[..length], 0), Err(Error::Truncated), "{length} bytes");
    }
}

#[test]
fn stream_cut_short_is_truncated() {
    let data = Noise(1).bytes(2000);
    let stream = compress(&data);
    for length in [18, stream.len() / 2, stream.len() - 100] {
        assert_eq!(unpack(&stream[..length], data.len()), Err(Error::Truncated), "{length} of {} bytes", stream.len());
    }
}

#[test]
fn properties_byte_over_224_is_properties() {
    let stream = compress(b"abc");
    for byte in [225, 226, 255] {
        let mut damaged = stream.clone();
        damaged[0] = byte;
        assert_eq!(unpack(&damaged, 3), Err(Error::Properties), "properties byte {byte}");
    }
}

#[test]
fn lc_plus_lp_over_4_is_properties() {
    // Even with a table that has room for lc + lp = 12 (224 is lc 8, lp 4,
    // pb 4: under 225, with the most context bits a byte can state).
    let mut probabilities = vec![0; LITERALS + (LITERAL_CODER << 12)];
    let mut out = [0; 3];
    let stream = compress(b"abc");
    for byte in [properties(5, 0, 0), properties(3, 2, 2), properties(1, 4, 0), properties(0, 4, 4) + 1, 224] {
        let mut damaged = stream.clone();
        damaged[0] = byte;
        assert_eq!(decode(&damaged, &mut out, &mut probabilities), Err(Error::Properties), "properties byte {byte}");
    }
}

#[test]
fn probability_table_too_small_for_lc_lp_is_properties() {
    // A table with room for lc + lp = 3 decodes lc 3 but not lc 4.
    let mut probabilities = vec![0; LITERALS + (LITERAL_CODER << 3)];
    let mut out = [0; 3];
    let mut stream = compress(b"abc");
    assert_eq!(decode(&stream, &mut out, &mut probabilities), Ok(()));
    assert_eq!(&out, b"abc");
    stream[0] = properties(4, 0, 2);
    assert_eq!(decode(&stream, &mut out, &mut probabilities), Err(Error::Properties));
}

#[test]
fn stated_size_other_than_the_output_length_is_size() {
    let data = prose(1000, 2);
    let stream = compress(&data);
    assert_eq!(unpack(&stream, data.len() - 1), Err(Error::Size));
    assert_eq!(unpack(&stream, data.len() + 1), Err(Error::Size));
    // What liblzma and `xz --format=lzma` write: the size unknown (all ones).
    let mut unknown = stream.clone();
    unknown[SIZE_FIELD].fill(0xFF);
    assert_eq!(unpack(&unknown, data.len()), Err(Error::Size));
    // The upper half of the 64-bit size counts too.
    let mut huge = stream;
    state_size(&mut huge, (1 << 32) + data.len() as u64);
    assert_eq!(unpack(&huge, data.len()), Err(Error::Size));
}

#[test]
fn range_coder_first_byte_not_0_is_first_byte() {
    let data = prose(1000, 3);
    let stream = compress(&data);
    assert_eq!(stream[13], 0);
    for byte in [1, 0x80, 0xFF] {
        let mut damaged = stream.clone();
        damaged[13] = byte;
        assert_eq!(unpack(&damaged, data.len()), Err(Error::FirstByte), "first byte {byte}");
    }
}

// The next two streams are hand-made: after the header, the range coder's
// 0 and its initial code. The range starts at 2^32 - 1; each bit's bound is
// range / 2^11 * probability, every probability starting at one half, so the
// first bound is 0x7FFF_FC00 and a code at or above it decodes a 1.

#[test]
fn rep_match_before_the_first_byte_is_distance() {
    // Code 0xFFFF_FFFF: "match" (1), then "rep" (1: the code minus the
    // first bound, 0x8000_03FF, is at least the second, 0x4000_0000).
    let stream = [header(DEFAULTS, 1), vec![0, 0xFF, 0xFF, 0xFF, 0xFF]].concat();
    assert_eq!(unpack(&stream, 1), Err(Error::Distance));
}

#[test]
fn match_before_the_first_byte_is_distance() {
    // Code 0x8000_0000: "match" (1), then "not rep" (0: 0x400 left, under
    // the second bound), and the zero bytes after it decode the shortest
    // length and distance slot 0, one byte back from position 0.
    let stream = [header(DEFAULTS, 1), vec![0, 0x80, 0, 0, 0], vec![0; 8]].concat();
    assert_eq!(unpack(&stream, 1), Err(Error::Distance));
}

#[test]
fn match_past_the_stated_size_is_overrun() {
    // 'a', then matches of 273 bytes (the longest): any stated size in
    // between ends inside one.
    let run = vec![b'a'; 1000];
    let mut stream = compress(&run);
    for size in [2, 100, 273] {
        state_size(&mut stream, size);
        assert_eq!(unpack(&stream, size as usize), Err(Error::Overrun), "stated size {size}");
    }
}

#[test]
fn end_marker_before_the_stated_size_is_end_marker() {
    for data in [vec![], b"abc".to_vec(), prose(5000, 4)] {
        let mut stream = compress(&data);
        let size = data.len() + 1;
        state_size(&mut stream, size as u64);
        assert_eq!(unpack(&stream, size), Err(Error::EndMarker), "{} bytes", data.len());
    }
}

#[test]
fn damaged_streams_decode_to_a_code_or_other_bytes() {
    // Every byte of the coded data flipped three ways, and noise after a
    // valid header: each decodes (to other bytes, or the same ones) or
    // returns a code; a panic (a read out of bounds, an overflow) fails.
    let data = prose(1500, 6);
    let stream = compress(&data);
    let mut codes = [0usize; 8];
    let mut count = |result: Result<Vec<u8>, Error>| match result {
        Ok(_) => codes[0] += 1,
        Err(code) => codes[code as usize] += 1,
    };
    for at in 14..stream.len() {
        for mask in [0x01, 0x10, 0xFF] {
            let mut damaged = stream.clone();
            damaged[at] ^= mask;
            count(unpack(&damaged, data.len()));
        }
    }
    let mut noise = Noise(99);
    for _ in 0..300 {
        let stream = [header(DEFAULTS, 4000), vec![0], noise.bytes(600)].concat();
        count(unpack(&stream, 4000));
    }
    // Damage in the coded data surfaces as the codes a decoder can see
    // there: a bad distance, a match too long, an early end, or running out.
    for code in [Error::Truncated, Error::Distance, Error::Overrun] {
        assert!(codes[code as usize] > 0, "no damage gave {code:?}: {codes:?}");
    }
}
