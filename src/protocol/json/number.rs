//! Numbers: integers as serde_json reads them, floats correctly rounded
//! (the nearest `f64`, ties to even, as `JSON.parse` and serde_json's
//! `float_roundtrip` read them), so a number passes through the client
//! unchanged: a JS argument read from `JSON.stringify`'s text and written
//! again is the number the caller gave.

use std::sync::OnceLock;

use serde_json::Number;

use super::{JsonError, Reader};

impl Reader<'_> {
    /// A number: `None` when it is JSON but no `f64` holds it. A float
    /// only checked (not `built`) is read as near as its range needs.
    pub(super) fn number(&mut self, built: bool) -> Result<Option<Number>, JsonError> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let start = self.at;
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
        let guess = float_of(digits, exponent);
        let magnitude = if !full && digits < 1 << 53 && (-22..=22).contains(&exponent) {
            // One rounding of exact operands (Clinger's fast path): the
            // nearest float already.
            guess
        } else if !built && guess.is_some_and(|g| g < 1e308) {
            // Only the range matters, and the guess is far inside it.
            guess
        } else {
            nearest_float(self.text.get(start..self.at).unwrap_or_default())
        };
        Ok(magnitude.and_then(|f| Number::from_f64(if negative { -f } else { f })))
    }
}

/// 10^`power` as the `f64` nearest to it, for `power` up to 308 (`None`
/// past), computed once from the exact integers instead of kept as 2.5 KB
/// of data in the module (the table serde_json ships). A float's digits as
/// an `f64` times or divided by one of them is exact when both are (the
/// fast path), else a first guess, close enough to tell whether a float
/// that is only checked is in range.
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

/// The nearest `f64` to the (unsigned) number `text`, where the fast path
/// is not exact: natively, core's reader (Eisel-Lemire, with 11 KB of
/// tables that do not matter there).
#[cfg(not(target_arch = "wasm32"))]
fn nearest_float(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// On wasm32 the host's: `parseFloat` reads as `JSON.parse` does (the
/// nearest float; V8, SpiderMonkey and JavaScriptCore read every length of
/// text exactly), where core's reader would be 11 KB of the module and a
/// reader of the crate's own was 1.5 KB (+1.0 KB gzip of the lite wasm;
/// this way the change cost 0.13 KB of each entry's). Only floats built into a
/// `Value` get here: results handed to JS as text are only checked, and
/// a check needs no more than the range.
#[cfg(target_arch = "wasm32")]
fn nearest_float(text: &str) -> Option<f64> {
    Some(js_sys::parse_float(text)).filter(|f| f.is_finite())
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

/// `digits` times 10^`exponent` as an `f64`, `None` past its range (tiny
/// values zero): exact for the fast path, a first guess otherwise.
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
