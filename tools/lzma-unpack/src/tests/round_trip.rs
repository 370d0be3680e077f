//! Streams liblzma writes decode to the bytes it was given.

use super::{compress, compress_with, header, properties, prose, state_size, unpack, Noise};
use xz2::stream::{LzmaOptions, Mode};

fn assert_round_trip(data: &[u8], stream: &[u8]) {
    let decoded = unpack(stream, data.len()).expect("liblzma's stream decodes");
    assert!(
        decoded == data,
        "the {}-byte stream decodes to other bytes than its {} input bytes",
        stream.len(),
        data.len()
    );
}

#[test]
fn decodes_source_text() {
    let text = include_bytes!("../lib.rs");
    let stream = compress(text);
    assert!(stream.len() < text.len() / 2, "text compresses to {} of {} bytes", stream.len(), text.len());
    assert_round_trip(text, &stream);
}

#[test]
fn decodes_incompressible_bytes() {
    let noise = Noise(0x9E37_79B9_7F4A_7C15).bytes(8192);
    assert_round_trip(&noise, &compress(&noise));
}

#[test]
fn decodes_matches_from_far_back() {
    // A block of noise twice: the second copy is matches at a distance of
    // 24 KiB (distance slots past the bit trees: direct bits, then align
    // bits), each at most 273 bytes long.
    let block = Noise(7).bytes(24 * 1024);
    let data = [block.as_slice(), b"--", block.as_slice()].concat();
    let stream = compress(&data);
    assert!(stream.len() < block.len() + block.len() / 8, "the copy costs {} bytes", stream.len() - block.len());
    assert_round_trip(&data, &stream);
}

#[test]
fn decodes_runs_of_one_byte() {
    for length in [1, 2, 3, 273, 274, 275, 5000] {
        let run = vec![b'a'; length];
        assert_round_trip(&run, &compress(&run));
    }
}

#[test]
fn decodes_every_preset_and_mode() {
    let data = prose(6000, 11);
    for preset in 0..=9 {
        for mode in [Mode::Fast, Mode::Normal] {
            let mut options = LzmaOptions::new_preset(preset).expect("presets 0 to 9 exist");
            options.mode(mode);
            assert_round_trip(&data, &compress_with(&data, &options));
        }
    }
}

#[test]
fn decodes_every_lc_lp_pb_liblzma_takes() {
    let data = prose(3000, 23);
    for lc in 0..=4u8 {
        for lp in 0..=4 - lc {
            for pb in 0..=4u8 {
                let mut options = LzmaOptions::new_preset(6).expect("preset 6 exists");
                options.literal_context_bits(lc.into()).literal_position_bits(lp.into()).position_bits(pb.into());
                let stream = compress_with(&data, &options);
                assert_eq!(stream[0], properties(lc, lp, pb), "liblzma wrote lc {lc}, lp {lp}, pb {pb}");
                assert_round_trip(&data, &stream);
            }
        }
    }
}

#[test]
fn decodes_empty_input() {
    let stream = compress(b"");
    assert_eq!(unpack(&stream, 0), Ok(vec![]));
}

#[test]
fn decodes_the_shortest_stream() {
    // The header and the range coder's 5 bytes, for nothing.
    let stream = [header(properties(3, 0, 2), 0), vec![0; 5]].concat();
    assert_eq!(unpack(&stream, 0), Ok(vec![]));
}

#[test]
fn ignores_the_dictionary_size() {
    // The whole output is the dictionary, so a stated dictionary smaller
    // than the distances the stream uses does not matter.
    let data = prose(40_000, 5);
    let mut stream = compress(&data);
    stream[1..5].copy_from_slice(&4096u32.to_le_bytes());
    assert_round_trip(&data, &stream);
}

#[test]
fn stops_at_the_stated_size() {
    // A stream decodes only as far as its header says: a shorter stated size
    // that ends between two symbols gives the bytes up to it.
    let data = Noise(3).bytes(500);
    let mut stream = compress(&data);
    state_size(&mut stream, 200);
    assert_eq!(unpack(&stream, 200).as_deref(), Ok(&data[..200]));
}
