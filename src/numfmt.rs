//! Numbers in error messages without `core::fmt`'s float printer.
//!
//! `{}` on an `f64` links Grisu and Dragon4 (about 15 KiB of wasm), which is
//! a quarter of the module's size budget, for text that only ever appears in
//! error messages. Twelve significant digits are plenty for a message.

/// `NaN`, `Infinity`, an exact integer, or a 12-digit `d.ddde±x` form.
pub fn f64_text(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let mut text = String::new();
    if value.is_sign_negative() {
        text.push('-');
    }
    let mut magnitude = value.abs();
    if magnitude.fract() == 0.0 && magnitude < 1e15 {
        text.push_str(&(magnitude as u64).to_string());
        return text;
    }
    // Normalize into [1, 10); at most ~330 steps for the extremes.
    let mut exponent = 0i32;
    while magnitude >= 10.0 {
        magnitude /= 10.0;
        exponent += 1;
    }
    while magnitude < 1.0 {
        magnitude *= 10.0;
        exponent -= 1;
    }
    let mut digits = (magnitude * 1e11).round() as u64;
    if digits >= 1_000_000_000_000 {
        digits /= 10;
        exponent += 1;
    }
    let all = digits.to_string();
    let (lead, rest) = all.split_at(1);
    let rest = rest.trim_end_matches('0');
    text.push_str(lead);
    if !rest.is_empty() {
        text.push('.');
        text.push_str(rest);
    }
    if exponent != 0 {
        text.push('e');
        text.push_str(&exponent.to_string());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::f64_text;

    #[test]
    fn prints_what_a_reader_expects() {
        assert_eq!(f64_text(f64::NAN), "NaN");
        assert_eq!(f64_text(f64::INFINITY), "Infinity");
        assert_eq!(f64_text(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(f64_text(1.0), "1");
        assert_eq!(f64_text(-2.0), "-2");
        assert_eq!(f64_text(0.0), "0");
        assert_eq!(f64_text(0.001), "1e-3");
        assert_eq!(f64_text(0.25), "2.5e-1");
        assert_eq!(f64_text(1.5), "1.5");
        assert_eq!(f64_text(123456.75), "1.2345675e5");
        assert_eq!(f64_text(9.99999999999e22), "9.99999999999e22");
        assert_eq!(f64_text(9.9999999999999e22), "1e23");
        assert_eq!(f64_text(f64::MIN_POSITIVE), "2.22507385851e-308");
    }
}
