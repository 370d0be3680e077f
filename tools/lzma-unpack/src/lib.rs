//! An LZMA decoder for the package's embedded wasm modules.
//!
//! `scripts/build.mjs` compresses each wasm module with LZMA (the ".lzma"
//! format of the LZMA SDK: a 13-byte header, then the range-coded data) and
//! embeds it as base64; gzipped, that is ≈ 12 KiB less for the main module
//! than hex of the raw bytes. This decoder is itself a wasm module of a few
//! KiB, instantiated synchronously at import by `pkg-template/lib/wasm/wasm-bytes.js`.
//! Measured in Node 20 on a loaded 2-vCPU machine: the main module decodes in
//! ≈ 6 ms warm and 12–20 ms in a fresh process, where the same decoder in
//! JavaScript took 11 ms warm and 36–200 ms cold (V8's interpreter and
//! baseline tiers).
//!
//! It follows the LZMA specification (`lzma-specification.txt` in the LZMA
//! SDK): a binary range decoder with adaptive 11-bit probabilities, literals
//! coded with the previous byte as context (and, after a match, the byte at
//! the last distance), matches with lengths and distances from bit trees,
//! and the four most recent distances as "reps". The header states the
//! decoded size, so the whole output is the dictionary. Every read of the
//! input and of earlier output is checked: a damaged stream is an error
//! code, never a trap or a byte outside the output.
// The host's tests link std (and liblzma, to compress what they decode).
#![cfg_attr(not(test), no_std)]

#[cfg(test)]
mod tests;

const PROBABILITY_BITS: u32 = 11;
const PROBABILITY_ONE: u16 = 1 << PROBABILITY_BITS;
const PROBABILITY_HALF: u16 = PROBABILITY_ONE / 2;
const MOVE_BITS: u32 = 5;
const TOP: u32 = 1 << 24;
/// Properties (1), dictionary size (4, unused: the output is the
/// dictionary), decoded size (8, little-endian).
const HEADER_LENGTH: usize = 13;
const PROPERTIES_LIMIT: u32 = 9 * 5 * 5;
/// `lc + lp` at most 4 (as LZMA2 requires), so the literal tables have a
/// fixed upper size.
const MAX_CONTEXT_BITS: u32 = 4;
const STATES: usize = 12;
const POS_STATES_MAX: usize = 16;
/// States below this one follow a literal.
const LITERAL_STATE_LIMIT: usize = 7;
const END_POS_MODEL_INDEX: u32 = 14;
const FULL_DISTANCES: usize = 128;
const ALIGN_BITS: u32 = 4;
const MATCH_MIN_LENGTH: usize = 2;
const END_MARKER: u32 = u32::MAX;

// Each group of probabilities at its offset in one table (the
// specification's separate tables laid end to end; literals last, since how
// many there are depends on `lc + lp`).
const IS_MATCH: usize = 0;
const IS_REP: usize = IS_MATCH + (STATES << 4);
const IS_REP_G0: usize = IS_REP + STATES;
const IS_REP_G1: usize = IS_REP_G0 + STATES;
const IS_REP_G2: usize = IS_REP_G1 + STATES;
const IS_REP0_LONG: usize = IS_REP_G2 + STATES;
const POS_SLOT: usize = IS_REP0_LONG + (STATES << 4);
const SPEC_POS: usize = POS_SLOT + (4 << 6);
const ALIGN: usize = SPEC_POS + FULL_DISTANCES - END_POS_MODEL_INDEX as usize;
// A length coder: two choice bits, a low and a mid 3-bit tree per position
// state, one 8-bit high tree.
const LEN_CHOICE: usize = 0;
const LEN_CHOICE_2: usize = 1;
const LEN_LOW: usize = 2;
const LEN_MID: usize = LEN_LOW + (POS_STATES_MAX << 3);
const LEN_HIGH: usize = LEN_MID + (POS_STATES_MAX << 3);
const LEN_CODER: usize = LEN_HIGH + 256;
const MATCH_LEN: usize = ALIGN + (1 << ALIGN_BITS);
const REP_LEN: usize = MATCH_LEN + LEN_CODER;
const LITERALS: usize = REP_LEN + LEN_CODER;
const LITERAL_CODER: usize = 0x300;
/// The probability table's size for the largest `lc + lp` accepted.
pub const PROBABILITIES_MAX: usize = LITERALS + (LITERAL_CODER << MAX_CONTEXT_BITS);

/// Why a stream does not decode (the codes `unpack` returns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Error {
    /// The input ends before the header, or before the coded data does.
    Truncated = 1,
    /// The properties byte is over 224, or `lc + lp` is over 4.
    Properties = 2,
    /// The header's decoded size is not the output's length.
    Size = 3,
    /// The range coder's first byte is not 0.
    FirstByte = 4,
    /// A match reaches back before the first byte.
    Distance = 5,
    /// A match runs past the decoded size.
    Overrun = 6,
    /// The end marker came before the decoded size.
    EndMarker = 7,
}

struct RangeDecoder<'a> {
    input: &'a [u8],
    at: usize,
    range: u32,
    code: u32,
    probabilities: &'a mut [u16],
}

impl RangeDecoder<'_> {
    fn normalize(&mut self) -> Result<(), Error> {
        if self.range < TOP {
            let byte = *self.input.get(self.at).ok_or(Error::Truncated)?;
            self.at += 1;
            self.range <<= 8;
            self.code = (self.code << 8) | u32::from(byte);
        }
        Ok(())
    }

    /// One bit with the adaptive probability at `index`.
    fn bit(&mut self, index: usize) -> Result<usize, Error> {
        let probability = &mut self.probabilities[index];
        let bound = (self.range >> PROBABILITY_BITS) * u32::from(*probability);
        let bit = if self.code < bound {
            self.range = bound;
            *probability += (PROBABILITY_ONE - *probability) >> MOVE_BITS;
            0
        } else {
            self.range -= bound;
            self.code -= bound;
            *probability -= *probability >> MOVE_BITS;
            1
        };
        self.normalize()?;
        Ok(bit)
    }

    /// `count` bits of probability one half, high bit first.
    fn direct_bits(&mut self, count: u32) -> Result<u32, Error> {
        let mut result = 0;
        for _ in 0..count {
            self.range >>= 1;
            let one = u32::from(self.code >= self.range);
            self.code -= self.range * one;
            result = (result << 1) | one;
            self.normalize()?;
        }
        Ok(result)
    }

    /// A `bits`-bit symbol from the tree at `base`, high bit first.
    fn tree(&mut self, base: usize, bits: u32) -> Result<usize, Error> {
        let mut node = 1;
        for _ in 0..bits {
            node = (node << 1) | self.bit(base + node)?;
        }
        Ok(node - (1 << bits))
    }

    /// A `bits`-bit symbol from the tree at `base`, low bit first.
    fn reverse_tree(&mut self, base: usize, bits: u32) -> Result<u32, Error> {
        let mut node = 1;
        let mut symbol = 0;
        for i in 0..bits {
            let bit = self.bit(base + node)?;
            node = (node << 1) | bit;
            symbol |= (bit as u32) << i;
        }
        Ok(symbol)
    }

    /// A match length minus 2, from the length coder at `base`.
    fn length(&mut self, base: usize, pos_state: usize) -> Result<usize, Error> {
        if self.bit(base + LEN_CHOICE)? == 0 {
            return self.tree(base + LEN_LOW + (pos_state << 3), 3);
        }
        if self.bit(base + LEN_CHOICE_2)? == 0 {
            return Ok(8 + self.tree(base + LEN_MID + (pos_state << 3), 3)?);
        }
        Ok(16 + self.tree(base + LEN_HIGH, 8)?)
    }

    /// A match distance minus 1 (`END_MARKER` for the end marker).
    fn distance(&mut self, length: usize) -> Result<u32, Error> {
        let slot = self.tree(POS_SLOT + (length.min(3) << 6), 6)? as u32;
        if slot < 4 {
            return Ok(slot);
        }
        let bits = (slot >> 1) - 1;
        let start = (2 | (slot & 1)) << bits;
        if slot < END_POS_MODEL_INDEX {
            let base = SPEC_POS + start as usize - slot as usize;
            return Ok(start + self.reverse_tree(base, bits)?);
        }
        let high = self.direct_bits(bits - ALIGN_BITS)? << ALIGN_BITS;
        Ok(start.wrapping_add(high).wrapping_add(self.reverse_tree(ALIGN, ALIGN_BITS)?))
    }
}

/// Decodes the `.lzma` stream `input` into `out`, whose length must be the
/// header's decoded size, using `probabilities` (at least
/// `PROBABILITIES_MAX` entries) as the model's table.
pub fn decode(input: &[u8], out: &mut [u8], probabilities: &mut [u16]) -> Result<(), Error> {
    if input.len() < HEADER_LENGTH + 5 {
        return Err(Error::Truncated);
    }
    let mut properties = u32::from(input[0]);
    if properties >= PROPERTIES_LIMIT {
        return Err(Error::Properties);
    }
    let lc = properties % 9;
    properties /= 9;
    let lp = properties % 5;
    let pb = properties / 5;
    if lc + lp > MAX_CONTEXT_BITS {
        return Err(Error::Properties);
    }
    let mut size = [0; 8];
    size.copy_from_slice(&input[5..HEADER_LENGTH]);
    if u64::from_le_bytes(size) != out.len() as u64 {
        return Err(Error::Size);
    }
    if input[HEADER_LENGTH] != 0 {
        return Err(Error::FirstByte);
    }
    let mut code = [0; 4];
    code.copy_from_slice(&input[HEADER_LENGTH + 1..HEADER_LENGTH + 5]);
    let table = probabilities.get_mut(..LITERALS + (LITERAL_CODER << (lc + lp))).ok_or(Error::Properties)?;
    table.fill(PROBABILITY_HALF);
    let mut coder = RangeDecoder {
        input,
        at: HEADER_LENGTH + 5,
        range: u32::MAX,
        code: u32::from_be_bytes(code),
        probabilities: table,
    };

    let pos_mask = (1 << pb) - 1;
    let literal_pos_mask = (1 << lp) - 1;
    let mut state = 0;
    let mut reps = [0usize; 4];
    let mut pos = 0;
    while pos < out.len() {
        let pos_state = pos & pos_mask;
        if coder.bit(IS_MATCH + (state << 4) + pos_state)? == 0 {
            let previous = if pos > 0 { usize::from(out[pos - 1]) } else { 0 };
            let context = ((pos & literal_pos_mask) << lc) + (previous >> (8 - lc));
            let base = LITERALS + LITERAL_CODER * context;
            let mut symbol = 1;
            if state >= LITERAL_STATE_LIMIT {
                // After a match the byte at the last distance predicts this
                // one, bit by bit, until they differ.
                let mut predicted = usize::from(out[pos - reps[0] - 1]);
                while symbol < 0x100 {
                    let predicted_bit = (predicted >> 7) & 1;
                    predicted <<= 1;
                    let bit = coder.bit(base + ((1 + predicted_bit) << 8) + symbol)?;
                    symbol = (symbol << 1) | bit;
                    if bit != predicted_bit {
                        break;
                    }
                }
            }
            while symbol < 0x100 {
                symbol = (symbol << 1) | coder.bit(base + symbol)?;
            }
            out[pos] = symbol as u8;
            pos += 1;
            state = match state {
                0..=3 => 0,
                4..=9 => state - 3,
                _ => state - 6,
            };
            continue;
        }
        let length;
        if coder.bit(IS_REP + state)? == 1 {
            if pos == 0 {
                return Err(Error::Distance);
            }
            if coder.bit(IS_REP_G0 + state)? == 0 {
                if coder.bit(IS_REP0_LONG + (state << 4) + pos_state)? == 0 {
                    // One byte from the last distance.
                    state = if state < LITERAL_STATE_LIMIT { 9 } else { 11 };
                    out[pos] = out[pos - reps[0] - 1];
                    pos += 1;
                    continue;
                }
            } else {
                let which = if coder.bit(IS_REP_G1 + state)? == 0 {
                    1
                } else if coder.bit(IS_REP_G2 + state)? == 0 {
                    2
                } else {
                    3
                };
                // The chosen distance moves to the front.
                reps[..=which].rotate_right(1);
            }
            length = coder.length(REP_LEN, pos_state)?;
            state = if state < LITERAL_STATE_LIMIT { 8 } else { 11 };
        } else {
            reps.copy_within(0..3, 1);
            length = coder.length(MATCH_LEN, pos_state)?;
            state = if state < LITERAL_STATE_LIMIT { 7 } else { 10 };
            let distance = coder.distance(length)?;
            if distance == END_MARKER {
                return Err(Error::EndMarker);
            }
            reps[0] = distance as usize;
        }
        let length = length + MATCH_MIN_LENGTH;
        if reps[0] >= pos {
            return Err(Error::Distance);
        }
        if length > out.len() - pos {
            return Err(Error::Overrun);
        }
        for _ in 0..length {
            out[pos] = out[pos - reps[0] - 1];
            pos += 1;
        }
    }
    Ok(())
}

#[cfg(target_arch = "wasm32")]
mod exports {
    use super::{decode, PROBABILITIES_MAX};

    static mut PROBABILITIES: [u16; PROBABILITIES_MAX] = [0; PROBABILITIES_MAX];

    /// Decodes `input_length` bytes at `input` into the `out_length` bytes at
    /// `out` (both laid out by the caller past `__heap_base`); 0, or an
    /// `Error` code.
    ///
    /// # Safety
    /// Both ranges must be inside the memory and must not overlap each other
    /// or the statics; `unpack` is not reentrant (nothing in wasm32 without
    /// threads can call it twice at once).
    #[no_mangle]
    pub unsafe extern "C" fn unpack(input: *const u8, input_length: usize, out: *mut u8, out_length: usize) -> u32 {
        // SAFETY: the caller's contract above.
        let (input, out, probabilities) = unsafe {
            (
                core::slice::from_raw_parts(input, input_length),
                core::slice::from_raw_parts_mut(out, out_length),
                &mut *core::ptr::addr_of_mut!(PROBABILITIES),
            )
        };
        match decode(input, out, probabilities) {
            Ok(()) => 0,
            Err(error) => error as u32,
        }
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}
