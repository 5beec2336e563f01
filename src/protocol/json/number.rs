//! Numbers: read as serde_json reads them (without `float_roundtrip`),
//! bit for bit.

use std::sync::OnceLock;

use serde_json::Number;

use super::{JsonError, Reader};

impl Reader<'_> {
    /// A number: `None` when it is JSON but no `f64` holds it.
    pub(super) fn number(&mut self) -> Result<Option<Number>, JsonError> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        // The digits as an integer and a power of ten: digits past what a
        // `u64` holds count only in the power (before the point) or not at
        // all (after it).
        let mut digits: u64 = 0;
        let mut exponent: i64 = 0;
        let mut full = false;
        let mut float = false;
        match self.peek() {
            Some(b'0') => {
                self.at += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.fail("invalid number"));
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(byte @ b'0'..=b'9') = self.peek() {
                    self.at += 1;
                    match digits.checked_mul(10).and_then(|d| d.checked_add(u64::from(byte - b'0'))) {
                        Some(more) if !full => digits = more,
                        _ => {
                            full = true;
                            exponent += 1;
                        }
                    }
                }
            }
            Some(_) => return Err(self.fail("invalid number")),
            None => return Err(self.fail("EOF while parsing a value")),
        }
        if self.peek() == Some(b'.') {
            float = true;
            self.at += 1;
            let before = self.at;
            while let Some(byte @ b'0'..=b'9') = self.peek() {
                self.at += 1;
                match digits.checked_mul(10).and_then(|d| d.checked_add(u64::from(byte - b'0'))) {
                    Some(more) if !full => {
                        digits = more;
                        exponent -= 1;
                    }
                    _ => full = true,
                }
            }
            if self.at == before {
                return Err(self.fail(if self.peek().is_none() {
                    "EOF while parsing a value"
                } else {
                    "invalid number"
                }));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            float = true;
            self.at += 1;
            let negative_power = self.peek() == Some(b'-');
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            let before = self.at;
            let mut power: i64 = 0;
            while let Some(byte @ b'0'..=b'9') = self.peek() {
                self.at += 1;
                // Past any exponent a float has, more digits change nothing.
                power = (power * 10 + i64::from(byte - b'0')).min(1 << 40);
            }
            if self.at == before {
                return Err(self.fail(if self.peek().is_none() {
                    "EOF while parsing a value"
                } else {
                    "invalid number"
                }));
            }
            exponent += if negative_power { -power } else { power };
        }
        if !float && !full {
            if !negative {
                return Ok(Some(Number::from(digits)));
            }
            // -0 is a float, as are integers below i64::MIN.
            let negated = (digits as i64).wrapping_neg();
            if negated < 0 {
                return Ok(Some(Number::from(negated)));
            }
        }
        let magnitude = float_of(digits, exponent);
        Ok(magnitude.and_then(|f| Number::from_f64(if negative { -f } else { f })))
    }
}

/// 10^`power` as the `f64` nearest to it, for `power` up to 308 (`None`
/// past): serde_json's table of powers of ten, computed once from the exact
/// integers instead of kept as 2.5 KB of data in the module. A number is
/// then read as serde_json reads it, bit for bit: its digits as an `f64`,
/// times or divided by the power (so a value read, written and read again
/// is the same value, as with serde_json; a product of two rounded powers
/// was not).
pub(super) fn power_of_ten(power: usize) -> Option<f64> {
    static POWERS: OnceLock<Vec<f64>> = OnceLock::new();
    let powers = POWERS.get_or_init(|| {
        // 10^k as base-2^32 digits, least significant first.
        let mut exact: Vec<u32> = vec![1];
        let mut powers = Vec::with_capacity(309);
        for _ in 0..=308 {
            powers.push(nearest(&exact));
            let mut carry = 0;
            for digit in &mut exact {
                let product = u64::from(*digit) * 10 + carry;
                *digit = product as u32;
                carry = product >> 32;
            }
            if carry > 0 {
                exact.push(carry as u32);
            }
        }
        powers
    });
    powers.get(power).copied()
}

/// The `f64` nearest to the integer whose base-2^32 digits are `digits`
/// (least significant first, the last one not zero), ties to even: its top
/// 64 bits, the lowest of them set if any bit below them is (so that the
/// conversion of those 64 bits rounds as the whole would), scaled.
fn nearest(digits: &[u32]) -> f64 {
    let Some(&top) = digits.last() else { return 0.0 };
    let bits = digits.len() * 32 - top.leading_zeros() as usize;
    let shift = bits.saturating_sub(64);
    let (word, offset) = (shift / 32, shift % 32);
    let digit = |i: usize| u128::from(digits.get(i).copied().unwrap_or(0));
    let window = digit(word) | digit(word + 1) << 32 | digit(word + 2) << 64;
    let below =
        digits.get(..word).unwrap_or_default().iter().any(|d| *d != 0) || digit(word) & ((1 << offset) - 1) != 0;
    let high = (window >> offset) as u64 | u64::from(below);
    // 2^shift, exact: shift is at most 960 for 10^308.
    high as f64 * f64::from_bits((shift as u64 + 1023) << 52)
}

/// `digits` times 10^`exponent` as an `f64`, `None` past its range: as
/// serde_json computes it (without `float_roundtrip`), tiny values zero.
fn float_of(digits: u64, mut exponent: i64) -> Option<f64> {
    let mut f = digits as f64;
    loop {
        match power_of_ten(usize::try_from(exponent.unsigned_abs()).unwrap_or(usize::MAX)) {
            Some(power) if exponent >= 0 => {
                f *= power;
                return f.is_finite().then_some(f);
            }
            Some(power) => return Some(f / power),
            None if f == 0.0 => return Some(f),
            None if exponent >= 0 => return None,
            None => {
                f /= 1e308;
                exponent += 308;
            }
        }
    }
}
