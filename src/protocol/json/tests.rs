//! The reader against serde_json: the same values, the same refusals.

use serde_json::Value;

use std::borrow::Cow;

use super::number::power_of_ten;
use super::*;

/// `value` as [`write`] writes it.
fn written(value: &Value) -> Option<String> {
    let mut out = String::new();
    write(value, &mut out);
    Some(out)
}

/// Both readers agree on `text`: the same value, or both refuse it.
fn agree(text: &str) {
    let ours = parse(text);
    let theirs = serde_json::from_str::<Value>(text);
    match (&ours, &theirs) {
        (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "{text:?}"),
        (Err(_), Err(_)) => {}
        _ => panic!("{text:?}: {ours:?} vs {theirs:?}"),
    }
    if let Ok(value) = &theirs {
        assert_eq!(written(value), serde_json::to_string(value).ok(), "writing {text:?}");
    }
    let skipped = check(text).is_ok();
    let ignored = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
    assert_eq!(skipped, ignored, "checking {text:?}");
}

#[test]
fn documents_read_as_serde_json_reads_them() {
    let deep = |n: usize| "[".repeat(n) + &"]".repeat(n);
    let cases = [
        "null",
        "true",
        "false",
        " 1 ",
        "-1",
        "0",
        "-0",
        "-0.0",
        "1.5",
        "1e3",
        "1E+3",
        "1e-3",
        "2.5e-3",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "0.30000000000000004",
        "1e308",
        "1e309",
        "-1e309",
        "1e-400",
        "0e999999999999",
        "4.9406564584124654e-324",
        "2.2250738585072014e-308",
        "1.7976931348623157e308",
        "123.456e-200",
        "1.0000000000000000000000001",
        "9007199254740993",
        "0.1e23",
        "1e22",
        "1e23",
        "7e-22",
        "3.14159e31",
        r#""""#,
        r#""a""#,
        r#""\u00e9\n\t\"\\\/\b\f\r""#,
        r#""\ud83d\ude00""#,
        r#""\ud83d""#,
        r#""\ude00""#,
        r#""\ud83dx""#,
        r#""\ud83d\u0041""#,
        r#"{"\ud83d":1}"#,
        r#""\x""#,
        r#""\u12""#,
        r#""\u12g4""#,
        "\"a\u{1}\"",
        "\"é ✓\"",
        "[]",
        "[ ]",
        "[1,2,[3,{}]]",
        "{}",
        "{ }",
        r#"{"a":1,"b":[true,null],"a":2}"#,
        r#"{"a" : { "b" : "c" } }"#,
        "",
        " ",
        "[",
        "]",
        "{",
        "}",
        "[1,]",
        "[,1]",
        r#"{"a":1,}"#,
        r#"{"a"}"#,
        r#"{"a":}"#,
        "{1:2}",
        "[1 2]",
        r#"{"a":1 "b":2}"#,
        "01",
        "-",
        "1.",
        ".5",
        "1e",
        "1e+",
        "+1",
        "--1",
        "1.5.2",
        "tru",
        "nul",
        "falsey",
        "NaN",
        "Infinity",
        "-Infinity",
        "[1]x",
        "\u{feff}1",
        "\"abc",
        "[\"a\"",
        r#"{"a":"#,
        "1 2",
        "\"\\",
        "\"\\u",
        "\t\r\n[\n1\n]\n",
        "[1e99999]",
        "[-1e99999]",
        "1e-99999",
    ];
    for text in cases {
        agree(text);
    }
    for n in [1, 126, 127, 128, 129, 300] {
        agree(&deep(n));
        // Objects and arrays in turn, past the 128 kept in one word.
        let open: String = (0..n).map(|i| if i % 3 == 0 { r#"{"k":"# } else { "[" }).collect();
        let close: String = (0..n).rev().map(|i| if i % 3 == 0 { "}" } else { "]" }).collect();
        agree(&format!("{open}1{close}"));
        agree(&format!("{open}1{close}]"));
        agree(&format!("{open}1{}", &close[..close.len() - 1]));
        agree(&format!("{}1{}", "[".repeat(n), "]".repeat(n)));
        agree(&format!("{}{}", r#"{"a":"#.repeat(n), "}".repeat(n)));
    }
}

/// A fixed generator (xorshift from `seed`): `next(n)` is below `n`.
fn generator(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |n| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    }
}

#[test]
fn generated_documents_read_as_serde_json_reads_them() {
    // JSON-like texts, some broken: the same inputs every run, thousands
    // of them, bounded.
    let mut next = generator(0x9E37_79B9_7F4A_7C15);
    let pieces = [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"a\"",
        "\"\\u00ff\"",
        "\"\\ud800\\udc00\"",
        "1",
        "-0",
        "1.5e3",
        "1e400",
        "18446744073709551616",
        "true",
        "null",
        " ",
        "\"k\":",
        "0.1",
        "-12.5E-7",
        "\"",
        "\\",
        "x",
    ];
    for _ in 0..20_000 {
        let length = next(12) + 1;
        let text: String = (0..length).map(|_| pieces[next(pieces.len() as u64) as usize]).collect();
        agree(&text);
    }
}

#[test]
fn an_error_says_what_and_where() {
    let error = parse("{\"a\":\n  [1, x]}").err().map(|e| e.to_string());
    assert_eq!(error.as_deref(), Some("expected value at line 2 column 7"));
    let error = parse("[1] 2").err();
    assert_eq!(error.as_ref().map(JsonError::offset), Some(4));
    assert!(error.is_some_and(|e| e.to_string().starts_with("trailing characters ")));
}

#[test]
fn a_string_without_escapes_is_lent_from_the_text() {
    let mut reader = Reader::new(r#"{"plain":1,"esc\u0061ped":2}"#);
    let mut names = Vec::new();
    let read = reader.members(|name, reader| {
        names.push((name.to_string(), matches!(name, Cow::Borrowed(_))));
        reader.value().map(drop)
    });
    assert_eq!(read, Ok(()));
    assert_eq!(names, [("plain".to_owned(), true), ("escaped".to_owned(), false)]);
}

#[test]
fn spans_are_the_values_text() {
    let mut reader = Reader::new(r#"[ {"a": [1, 2]} , "x" ,3]"#);
    let mut spans = Vec::new();
    assert_eq!(reader.elements(|reader| reader.span(false).map(|span| spans.push(span))), Ok(()));
    assert_eq!(spans, [r#"{"a": [1, 2]}"#, r#""x""#, "3"]);
    let held = Reader::new(&format!("{}{}", "[".repeat(200), "]".repeat(200))).span(true).err();
    assert!(held.is_some_and(|e| e.to_string().starts_with("recursion limit exceeded ")));
    let out_of_range = Reader::new("1e999").span(true).err();
    assert!(out_of_range.is_some_and(|e| e.to_string().starts_with("number out of range ")));
    assert_eq!(Reader::new("1e999").span(false), Ok("1e999"));
}

#[test]
fn a_plain_run_ends_where_a_byte_at_a_time_ends_it() {
    let slow = |bytes: &[u8]| bytes.iter().take_while(|&&b| !matches!(b, b'"' | b'\\' | 0..0x20)).count();
    for length in 0..24 {
        for at in 0..=length {
            for special in [b'"', b'\\', 0x00, 0x1F, b'!', b'[', b']', 0x20, 0x7F, 0x80, 0xC3, 0xFF] {
                let mut bytes = vec![b'a'; length];
                if at < length {
                    bytes[at] = special;
                }
                assert_eq!(plain_run(&bytes), slow(&bytes), "{special:#x} at {at} of {length}");
            }
        }
    }
}

#[test]
fn strings_are_written_as_serde_json_writes_them() {
    let every_ascii: String = (0u8..128).map(char::from).collect();
    for text in [
        "",
        "plain",
        "quote \" and backslash \\",
        "é ✓ 😀",
        "\u{7f}\u{80}\u{2028}",
        &every_ascii,
        &every_ascii.repeat(3),
    ] {
        let value = Value::String(text.to_owned());
        assert_eq!(written(&value), serde_json::to_string(&value).ok(), "{text:?}");
    }
    let value =
        serde_json::json!({"a": [1, -2, 2.5, 1e300, -0.0, 18446744073709551615u64, null, true, {"b\n": "c"}], "": {}});
    assert_eq!(written(&value), serde_json::to_string(&value).ok());
}

#[test]
fn powers_of_ten_are_the_nearest_floats() {
    for power in 0..=308 {
        let expected = format!("1e{power}").parse::<f64>().ok();
        assert_eq!(power_of_ten(power), expected, "10^{power}");
    }
    assert_eq!(power_of_ten(309), None);
}

/// The float `text` reads as, by the standard library's reader (correctly
/// rounded), against the crate's (on wasm32, the host's `parseFloat`
/// where the fast path is not exact).
fn float_agrees(text: &str) {
    let expected = text.parse::<f64>().ok().filter(|f| f.is_finite());
    let ours = parse(text).ok().and_then(|value| value.as_f64());
    assert_eq!(ours.map(f64::to_bits), expected.map(f64::to_bits), "{text}: {ours:?}, not {expected:?}");
}

#[test]
fn floats_read_as_the_nearest_float() {
    for text in [
        // Shortest texts whose digits and power, each rounded, multiply
        // to a neighbour of the float they name.
        "9.999999999999999e55",
        "0.30000000000000004",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "179769313486231580793728971405301e276",
        // Halfway between two floats, and just either side of it: ties
        // go to the even one.
        "9007199254740993",
        "9007199254740993.0000000000000000000000000000000000001",
        "9007199254740992.9999999999999999999999999999999999999",
        "9007199254740995",
        "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126",
        // More digits than are kept exactly, the cut ones not all zero.
        &format!("1.00000000000000011102230246251565404236316680908203125{}1", "0".repeat(900)),
        &format!("0.{}1e-100", "0".repeat(1000)),
        &format!("{}e-1000", "9".repeat(1200)),
        "0e999999",
        "0.000e-5",
        "123456789012345678901234567890e-20",
    ] {
        float_agrees(text);
    }
}

/// The same in the browser, where the host's `parseFloat` reads what the
/// fast path does not (core's reader is not in the module).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test::wasm_bindgen_test]
fn floats_read_as_the_nearest_float_in_wasm() {
    floats_read_as_the_nearest_float();
    generated_floats_read_as_the_nearest_float();
    floats_written_read_back_as_themselves();
}

/// A float written is read back as itself, and still as a float (a
/// fraction or an exponent, the sign of zero): natively by serde_json's
/// writer, on wasm32 by the host's (`Shown`).
#[test]
fn floats_written_read_back_as_themselves() {
    let mut next = generator(0x9E37_79B9_7F4A_7C15);
    let generated = (0..20_000).map(|_| f64::from_bits(next(0x7FF0_0000_0000_0000)));
    let chosen = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        1e20,
        1e21,
        1e-7,
        123456789012345680000.0,
        4.35e-200,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
    ];
    for float in chosen.into_iter().chain(generated) {
        for float in [float, -float] {
            let value = Value::from(float);
            let text = written(&value).unwrap_or_default();
            assert!(text.contains(['.', 'e']), "{float:e} written as {text}");
            let read = parse(&text).ok().and_then(|value| value.as_f64());
            assert_eq!(read.map(f64::to_bits), Some(float.to_bits()), "{float:e} written as {text}");
        }
    }
}

#[test]
fn generated_floats_read_as_the_nearest_float() {
    // Digit strings of 1 to 40 digits, a point somewhere, a power from the
    // whole range; the same every run, bounded.
    let mut next = generator(0x2545_F491_4F6C_DD1D);
    for _ in 0..20_000 {
        let length = next(40) + 1;
        let mut digits: String = (0..length).map(|_| char::from(b'0' + next(10) as u8)).collect();
        if next(2) == 0 {
            digits.insert(next(length) as usize + 1, '.');
            if digits.ends_with('.') {
                digits.push('5');
            }
        }
        // JSON has no leading zeros but the one before a point.
        if digits.starts_with('0') && digits.len() > 1 && !digits.starts_with("0.") {
            digits.replace_range(..1, "1");
        }
        let text = format!("{digits}e{}", next(700) as i64 - 350);
        float_agrees(&text);
        // And the shortest text of a random float, read back as itself.
        let float = f64::from_bits(next(0x7FF0_0000_0000_0000));
        float_agrees(&float.to_string());
        float_agrees(&format!("{float:e}"));
    }
}

#[test]
fn floats_past_the_exact_powers_read_as_serde_json_reads_them() {
    for text in [
        "1e39",
        "1e+39",
        "1.0000000000000001e39",
        "777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777",
        "1.7976931348623157e308",
        "2.2250738585072014e-308",
        "5e-324",
        "1e-320",
        "123456789.123456789e-250",
        "9.999999999999999e22",
        "1e23",
        "8.98846567431158e307",
        "4.9e-324",
        "1e-400",
    ] {
        agree(text);
        float_agrees(text);
        // Written and read again, the same value.
        if let Ok(value) = parse(text) {
            assert_eq!(written(&value).map(|t| parse(&t)), Some(Ok(value)), "{text}");
        }
    }
}

/// The crate's lossy UTF-8 decoding (`protocol::utf8_lossy`, which the
/// transports and the OAuth challenge reader use) replaces what std's does.
#[test]
fn invalid_utf8_is_replaced_as_std_replaces_it() {
    let mut next = generator(0xD1B5_4A32_D192_ED03);
    // Bytes drawn mostly from the ranges UTF-8 sequences are made of.
    let pieces: [&[u8]; 8] =
        [b"a", "é".as_bytes(), "€".as_bytes(), "😀".as_bytes(), &[0x80], &[0xE2, 0x82], &[0xF0, 0x9F], &[0xFF]];
    for _ in 0..5_000 {
        let length = next(12);
        let mut bytes = Vec::new();
        for _ in 0..length {
            if next(4) == 0 {
                bytes.push(next(256) as u8);
            } else {
                bytes.extend_from_slice(pieces[next(pieces.len() as u64) as usize]);
            }
        }
        assert_eq!(crate::protocol::utf8_lossy(&bytes), String::from_utf8_lossy(&bytes), "{bytes:x?}");
    }
}
