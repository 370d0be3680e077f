//! `delta::apply` on arbitrary bytes against an arbitrary base. Input: a u32
//! (LE) base length, that many bytes of ABF1 base, then the ABD1 delta; both
//! tried as given and with their checksums repaired, so mutations reach the
//! checks behind them. Properties:
//! - `apply` fails exactly when `Delta::parse` does, or with a base or result
//!   error after it succeeds;
//! - Ok ⇒ the result is the delta's target: its ABF1 encoding starts with
//!   the target header the delta carries, it keeps every base bit and adds
//!   exactly `positionCount`, and re-encoding the delta from base and result
//!   and applying that gives the same result.
#![no_main]

use artifact_bloom::abf1::{self, Snapshot};
use artifact_bloom::delta::{self, Delta, DeltaError, OFFSET_TARGET_HEADER};
use libfuzzer_sys::fuzz_target;

mod common;

fn check(base: &Snapshot, bytes: &[u8]) {
    let version = base.header.catalog_version;
    let parsed = Delta::parse(bytes);
    match delta::apply(&base.filter, version, bytes) {
        Ok(result) => {
            let header = parsed
                .expect("apply succeeded, so the delta parses")
                .header()
                .clone();
            assert_eq!(result.header, header.target);
            let file = abf1::encode(&result.filter, result.header.catalog_version)
                .expect("a loaded target re-encodes");
            assert_eq!(
                &file[..abf1::HEADER_LENGTH],
                &bytes[OFFSET_TARGET_HEADER..OFFSET_TARGET_HEADER + abf1::HEADER_LENGTH]
            );
            let (old, new) = (base.filter.bits().words(), result.filter.bits().words());
            assert!(
                old.iter().zip(new).all(|(o, n)| o & !n == 0),
                "a base bit was cleared"
            );
            assert_eq!(
                result.filter.bits().count_ones(),
                base.filter.bits().count_ones() + header.position_count
            );
            let again = delta::encode(
                &base.filter,
                version,
                &result.filter,
                result.header.catalog_version,
            )
            .expect("base and result have a delta");
            let replayed =
                delta::apply(&base.filter, version, &again).expect("a fresh delta applies");
            assert_eq!(replayed.filter, result.filter);
        }
        Err(error) => {
            if let Err(first) = &parsed {
                assert_eq!(&error, first, "apply must report the decoder's error first");
            } else {
                assert!(
                    matches!(
                        error,
                        DeltaError::WrongBase(_)
                            | DeltaError::ResultChecksumMismatch
                            | DeltaError::OutOfMemory { .. }
                    ),
                    "after a successful parse only the base or the result can fail: {error}"
                );
            }
            let _ = (error.code(), error.message(), error.to_string());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((length, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let length = u32::from_le_bytes(*length) as usize;
    if rest.len() < length {
        return;
    }
    let (base_bytes, delta_bytes) = rest.split_at(length);
    let base = match abf1::decode(base_bytes) {
        Ok(base) => base,
        Err(_) => match common::abf1_resealed(base_bytes).map(|sealed| abf1::decode(&sealed)) {
            Some(Ok(base)) => base,
            _ => return,
        },
    };
    check(&base, delta_bytes);
    if let Some(sealed) = common::trailer_resealed(delta_bytes) {
        check(&base, &sealed);
    }
});
