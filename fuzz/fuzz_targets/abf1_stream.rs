//! `abf1::StreamDecoder` fed in chunks whose sizes the input chooses; its
//! result must equal `abf1::decode` on the same bytes.
//!
//! Input layout: byte 0 = control (low 4 bits: how many chunk-size bytes
//! follow; bit 7: repair the ABF1 checksum of the file part), then that many
//! size bytes (0..=199 → that many bytes, 200..=255 → 1..=56 KiB), then the
//! file. Sizes are used in turn, cyclically; with no size bytes the file is
//! pushed whole.
#![no_main]

use artifact_bloom::abf1::{self, LoadError, StreamDecoder, HEADER_LENGTH};
use libfuzzer_sys::fuzz_target;

mod common;

fn chunk_size(byte: u8) -> usize {
    match byte {
        0..=199 => usize::from(byte),
        _ => (usize::from(byte) - 199) * 1024,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else { return };
    let size_count = usize::from(control & 0x0f);
    if rest.len() < size_count {
        return;
    }
    let (size_bytes, file) = rest.split_at(size_count);
    let sealed;
    let file: &[u8] = if control & 0x80 != 0 {
        match common::abf1_resealed(file) {
            Some(bytes) => {
                sealed = bytes;
                &sealed
            }
            None => file,
        }
    } else {
        file
    };
    let mut sizes: Vec<usize> = size_bytes.iter().map(|&b| chunk_size(b)).collect();
    if sizes.iter().all(|&s| s == 0) {
        // An empty push first (must be harmless), then the rest at once.
        sizes.push(file.len().max(1));
    }

    let whole = common::check_abf1(file);
    let header_of_file = abf1::parse_header(file);

    let mut decoder = StreamDecoder::new();
    let mut offset = 0usize;
    let mut turn = 0usize;
    let mut push_error: Option<LoadError> = None;
    while offset < file.len() {
        let size = sizes[turn % sizes.len()].min(file.len() - offset);
        turn += 1;
        let chunk = &file[offset..offset + size];
        offset += size;
        match decoder.push(chunk) {
            Ok(()) => {
                assert_eq!(decoder.bytes_received(), offset as u64);
                // The header is decided exactly when 96 bytes are in.
                if offset >= HEADER_LENGTH {
                    let expected = header_of_file.as_ref().expect("a pushed header that failed must fail push");
                    assert_eq!(decoder.header(), Some(expected));
                    assert_eq!(decoder.total_length(), Some(expected.total_length()));
                } else {
                    assert!(decoder.header().is_none());
                }
            }
            Err(error) => {
                // A failure is replayed on every later call, empty pushes too.
                assert_eq!(decoder.push(&[]), Err(error.clone()));
                assert_eq!(decoder.push(&file[offset..]), Err(error.clone()));
                push_error = Some(error);
                break;
            }
        }
    }
    if push_error.is_none() {
        // Complete means steps 1–7 passed: decode is then Ok or checksumMismatch.
        let complete = decoder.is_complete();
        let expect_complete = matches!(whole, Ok(()) | Err(LoadError::ChecksumMismatch));
        assert_eq!(complete, expect_complete, "is_complete disagrees with decode: {whole:?}");
    }
    let streamed = decoder.finish();
    if let Some(error) = &push_error {
        assert_eq!(streamed.as_ref().err(), Some(error), "finish must replay the push failure");
    }
    match (abf1::decode(file), streamed) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "stream and decode built different snapshots"),
        (Err(a), Err(b)) => {
            assert_eq!(a.code(), b.code(), "stream {b:?} vs decode {a:?}");
            // Only lengthMismatch may differ: the stream reports the bytes it
            // had when it saw the excess, a lower bound of the real length.
            if a.code() != "lengthMismatch" {
                assert_eq!(a, b);
            }
        }
        (a, b) => panic!("decode gave {a:?}, stream gave {b:?}"),
    }
});
