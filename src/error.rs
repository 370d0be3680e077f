//! The one error style of the crate: every error enum is [`Coded`].
//!
//! An error is a stable camelCase `code()` and its data as named values
//! ([`Coded::fields`]), never a formatted sentence. The sentence a person
//! reads ("expected X, got Y") is built from the code and the values by the
//! JavaScript layer (`pkg-template/lib/core/errors.js`, `codedError`), so the wasm
//! carries no message text and no `core::fmt` machinery for it, and a tool
//! reads the numbers without parsing text. `src/wasm/error.rs` is the one
//! adapter that turns a `Coded` into a JS `Error`.
//!
//! Natively, [`Described`] prints the code and the fields
//! (`truncated (needed 96, got 3)`), which is what `Display` shows.

use core::fmt;

/// One named value of an error. Equal when bit for bit equal, so an error
/// carrying a NaN equals itself (two decoders must agree on it).
#[derive(Clone, Copy, Debug)]
pub enum Value {
    /// A count, length, version or position (JS gets a number, or a BigInt
    /// above 2^53 − 1 so nothing is rounded).
    Integer(u64),
    /// A rate or any other float, as JavaScript would print it.
    Number(f64),
    /// A fixed word: a field name, a rule, a purpose.
    Word(&'static str),
    /// Four bytes as they were found (a magic number).
    Bytes4([u8; 4]),
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Number(a), Value::Number(b)) => a.to_bits() == b.to_bits(),
            (Value::Integer(a), Value::Integer(b)) => a == b,
            (Value::Word(a), Value::Word(b)) => a == b,
            (Value::Bytes4(a), Value::Bytes4(b)) => a == b,
            _ => false,
        }
    }
}

/// Where an error's fields are written: the JS adapter (an object), or
/// [`Described`] (text).
pub trait Fields {
    /// A named value.
    fn value(&mut self, name: &'static str, value: Value);
    /// A nested coded error (the ABF1 failure inside a delta failure, …).
    fn inner(&mut self, name: &'static str, error: &dyn Coded);

    /// Shorthand for [`Value::Integer`].
    fn integer(&mut self, name: &'static str, value: u64) {
        self.value(name, Value::Integer(value));
    }

    /// Shorthand for [`Value::Word`].
    fn word(&mut self, name: &'static str, value: &'static str) {
        self.value(name, Value::Word(value));
    }
}

/// An error with a stable code and its data as fields.
pub trait Coded {
    /// The stable camelCase code (the reference's, or docs/ABF1.md's and
    /// docs/ABD1.md's), used verbatim as the JS `code` and result `error`.
    fn code(&self) -> &'static str;

    /// Which family of messages the code belongs to ("snapshot", "delta",
    /// "layout", …): the same code (`truncated`) reads differently for a
    /// snapshot and for a delta.
    fn domain(&self) -> &'static str;

    /// Writes the error's data; nothing for an error that is its code.
    fn fields(&self, out: &mut dyn Fields);
}

/// `code (name value, …)`: a coded error as text, for `Display` and tests.
pub struct Described<'a>(pub &'a dyn Coded);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = FieldText { out: f, count: 0, result: Ok(()) };
        text.out.write_str(self.0.code())?;
        self.0.fields(&mut text);
        text.result?;
        if text.count > 0 {
            f.write_str(")")?;
        }
        Ok(())
    }
}

struct FieldText<'a, 'b> {
    out: &'a mut fmt::Formatter<'b>,
    count: usize,
    result: fmt::Result,
}

impl FieldText<'_, '_> {
    fn separator(&mut self, name: &str) -> fmt::Result {
        self.out.write_str(if self.count == 0 { " (" } else { ", " })?;
        self.count += 1;
        self.out.write_str(name)?;
        self.out.write_str(" ")
    }
}

impl Fields for FieldText<'_, '_> {
    fn value(&mut self, name: &'static str, value: Value) {
        if self.result.is_err() {
            return;
        }
        self.result = self.separator(name).and_then(|()| match value {
            Value::Integer(n) => write!(self.out, "{n}"),
            Value::Number(x) => write!(self.out, "{x}"),
            Value::Word(word) => self.out.write_str(word),
            Value::Bytes4([a, b, c, d]) => write!(self.out, "{a:02x} {b:02x} {c:02x} {d:02x}"),
        });
    }

    fn inner(&mut self, name: &'static str, error: &dyn Coded) {
        if self.result.is_err() {
            return;
        }
        self.result = self.separator(name).and_then(|()| write!(self.out, "[{}]", Described(error)));
    }
}

/// The `Display` of a [`Coded`] type: its [`Described`] text.
macro_rules! display_coded {
    ($($name:ty),+ $(,)?) => {$(
        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Display::fmt(&$crate::error::Described(self), f)
            }
        }

        impl std::error::Error for $name {}
    )+};
}
pub(crate) use display_coded;

/// Declares a `Copy` error enum whose variants each carry a camelCase JS code,
/// with `code()`, `ALL`, `Display` and `Error`. Every failure type of the
/// variants (TLBF, mergeable, scalable, sizing) is one, so the bindings map
/// them to JS errors the same way. The variant's name says the condition;
/// the sentence a user reads is written once, in JS
/// (pkg-template/lib/variants/variant-messages.js, by filter and code), and
/// js-tests/error-messages.test.mjs fails if a code declared here has none.
macro_rules! coded_errors {
    ($(#[$meta:meta])* pub enum $name:ident in $filter:literal { $($(#[$variant_meta:meta])* $variant:ident => $code:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $($(#[$variant_meta])* $variant,)+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The JS error code (camelCase).
            pub fn code(self) -> &'static str {
                match self {
                    $($name::$variant => $code,)+
                }
            }

            /// The filter whose failure this is (`"tlbf"`, `"mergeable"`, …).
            pub const FILTER: &'static str = $filter;
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{} failure: {}", $filter, self.code())
            }
        }

        impl std::error::Error for $name {}

        /// The JS layer builds the sentence from the filter and the code
        /// (lib/variants/variant-messages.js), as for every other domain.
        impl $crate::error::Coded for $name {
            fn code(&self) -> &'static str {
                $name::code(*self)
            }

            fn domain(&self) -> &'static str {
                "variants"
            }

            fn fields(&self, out: &mut dyn $crate::error::Fields) {
                out.word("filter", $filter);
            }
        }
    };
}
pub(crate) use coded_errors;

#[cfg(test)]
mod tests {
    use super::*;

    struct Sample;

    impl Coded for Sample {
        fn code(&self) -> &'static str {
            "sample"
        }
        fn domain(&self) -> &'static str {
            "test"
        }
        fn fields(&self, out: &mut dyn Fields) {
            out.integer("needed", 96);
            out.value("rate", Value::Number(0.5));
            out.value("found", Value::Bytes4(*b"ABF1"));
            out.inner("inner", &Bare);
        }
    }

    struct Bare;

    impl Coded for Bare {
        fn code(&self) -> &'static str {
            "bare"
        }
        fn domain(&self) -> &'static str {
            "test"
        }
        fn fields(&self, _: &mut dyn Fields) {}
    }

    #[test]
    fn described_lists_code_and_fields() {
        assert_eq!(Described(&Sample).to_string(), "sample (needed 96, rate 0.5, found 41 42 46 31, inner [bare])");
        assert_eq!(Described(&Bare).to_string(), "bare");
    }
}
