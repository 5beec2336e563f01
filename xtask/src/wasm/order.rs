//! The order of a wasm module's functions, chosen for the compressor.
//!
//! rustc and wasm-bindgen lay functions out in the order they were made,
//! so the copies of one generic (a derived reader per struct, a
//! `drop_in_place` per type, a future's `poll` per async fn) are scattered
//! over the code section. gzip finds repeats only within 32 KB behind it,
//! and brotli's model also does best with like beside like. So the package
//! puts functions of the same signature side by side, and within a
//! signature each beside the one most like it ([`likeness_order`]): on the
//! full wasm, gzip -3.4% from the sort by signature and body alone, -0.7%
//! more from the chain (docs/size.md has the figures). Other keys were
//! measured and lost: by name (-0.9%), by crate and then size (-1.6%), by
//! signature and then size (-3.2%).
//!
//! binaryen moves the functions (`--reorder-functions-by-name`, which
//! renumbers every call and table entry); this module gives it the names
//! to sort: each defined function named by its rank in the order wanted.
//! The names are dropped again when binaryen writes the module.

use super::{Section, leb, section, sections};

/// `module` with a `name` section naming each defined function by its rank
/// in [`likeness_order`].
pub fn name_by_likeness(module: &[u8]) -> Result<Vec<u8>, String> {
    let parsed = Functions::parse(module)?;
    if parsed.types.len() != parsed.bodies.len() {
        return Err(format!(
            "the wasm declares {} functions but has {} bodies",
            parsed.types.len(),
            parsed.bodies.len()
        ));
    }
    let order = likeness_order(&parsed.types, &parsed.bodies);
    let width = order.len().to_string().len();
    let mut rank = vec![0; order.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    // The `name` section: subsection 1, function names, in index order.
    let mut names = Vec::new();
    leb(&mut names, order.len() as u64);
    for (i, r) in rank.iter().enumerate() {
        leb(&mut names, (parsed.imported_functions + i) as u64);
        let name = format!("{r:0width$}");
        leb(&mut names, name.len() as u64);
        names.extend_from_slice(name.as_bytes());
    }
    let mut payload = Vec::new();
    leb(&mut payload, 4);
    payload.extend_from_slice(b"name");
    payload.push(1);
    leb(&mut payload, names.len() as u64);
    payload.extend_from_slice(&names);
    // A name section already there (a build that keeps names) goes: the
    // module's other sections are copied as they are.
    let mut out = module[..8].to_vec();
    for kept in parsed.sections.iter().filter(|kept| !kept.is_custom(module, "name")) {
        out.extend_from_slice(&module[kept.start..kept.end]);
    }
    section(&mut out, 0, &payload);
    Ok(out)
}

/// How many bytes of a body (its locals, then its first instructions) make
/// the first key: 24 measured best of 4, 8, 24, 64 and all.
const LIKENESS_PREFIX: usize = 24;

/// The functions' indices in the order wanted: grouped by signature; in a
/// group, sorted by the start of the body, then chained from the first so
/// that each is followed by the one left most like it (the share of their
/// 6-byte runs the two have in common; on a tie, the earlier in the sort).
/// The chain took another 0.7% off the gzip and brotli of the full wasm;
/// runs of 3, 4, 8 and 12 bytes did less than 6.
fn likeness_order(types: &[u32], bodies: &[&[u8]]) -> Vec<usize> {
    let mut sorted: Vec<usize> = (0..bodies.len()).collect();
    // Stable, with the index last: the same module always gets the same order.
    sorted.sort_by_key(|&i| (types[i], &bodies[i][..bodies[i].len().min(LIKENESS_PREFIX)], i));
    let runs: Vec<Vec<u64>> = bodies.iter().map(|body| runs_of(body)).collect();
    let mut order = Vec::with_capacity(bodies.len());
    for group in sorted.chunk_by(|&a, &b| types[a] == types[b]) {
        let mut left = group.to_vec();
        let mut current = left.remove(0);
        order.push(current);
        while !left.is_empty() {
            let mut best = (0, 0, 1);
            for (at, &candidate) in left.iter().enumerate() {
                let (shared, all) = likeness(&runs[current], &runs[candidate]);
                // shared / all > best's, without division.
                if (shared as u64) * (best.2 as u64) > (best.1 as u64) * (all as u64) {
                    best = (at, shared, all);
                }
            }
            current = left.remove(best.0);
            order.push(current);
        }
    }
    order
}

/// The distinct runs of 6 bytes in `body`, sorted (each run is its own key:
/// six bytes fit in a `u64`).
fn runs_of(body: &[u8]) -> Vec<u64> {
    let mut runs: Vec<u64> =
        body.windows(6).map(|run| run.iter().fold(0u64, |key, &byte| key << 8 | u64::from(byte))).collect();
    runs.sort_unstable();
    runs.dedup();
    runs
}

/// How many runs two bodies share, and how many they have between them.
fn likeness(a: &[u64], b: &[u64]) -> (usize, usize) {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (shared, a.len() + b.len() - shared)
}

/// What the order needs of a module: the number of imported functions
/// (they come first in the index space), and each defined function's
/// signature and body.
struct Functions<'a> {
    imported_functions: usize,
    types: Vec<u32>,
    bodies: Vec<&'a [u8]>,
    sections: Vec<Section>,
}

impl<'a> Functions<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Self, String> {
        let sections = sections(bytes)?;
        let mut functions =
            Functions { imported_functions: 0, types: Vec::new(), bodies: Vec::new(), sections: Vec::new() };
        for section in &sections {
            let mut reader = section.payload(bytes);
            match section.id {
                2 => {
                    for import in super::imports(&mut reader)? {
                        functions.imported_functions += usize::from(import.is_function());
                    }
                }
                3 => {
                    for _ in 0..reader.leb()? {
                        functions.types.push(reader.leb()? as u32);
                    }
                }
                10 => {
                    for _ in 0..reader.leb()? {
                        let size = reader.leb()? as usize;
                        functions.bodies.push(reader.take(size)?);
                    }
                }
                _ => {}
            }
        }
        functions.sections = sections;
        Ok(functions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wasm::alone;

    #[test]
    fn functions_are_named_by_signature_then_body_after_the_imports() {
        let mut module = b"\0asm\x01\0\0\0".to_vec();
        // Two signatures: () -> () and (i32) -> ().
        module.extend(alone(1, &[2, 0x60, 0, 0, 0x60, 1, 0x7f, 0]));
        // Imports: one function ("m" "f", type 0) and one memory.
        module.extend(alone(2, &[2, 1, b'm', 1, b'f', 0, 0, 1, b'm', 1, b'm', 2, 0, 1]));
        // Three defined functions of types 1, 0, 1.
        module.extend(alone(3, &[3, 1, 0, 1]));
        // Bodies: no locals, then `nop`s or `unreachable`s, `end`.
        module.extend(alone(10, &[3, 3, 0, 0x01, 0x0b, 3, 0, 0x01, 0x0b, 3, 0, 0x00, 0x0b]));
        let named = name_by_likeness(&module).expect("a valid module");
        assert_eq!(&named[..module.len()], &module[..], "the module is kept as it was");
        // Named again, the names given first are replaced, not repeated.
        assert_eq!(name_by_likeness(&named).expect("a valid module"), named);
        // Sorted: index 2 (type 0), index 3 (type 1, `unreachable` is 0x00),
        // index 1 (type 1, `nop` is 0x01).
        let names = &named[module.len()..];
        let expected: &[u8] = &[0, 17, 4, b'n', b'a', b'm', b'e', 1, 10, 3, 1, 1, b'2', 2, 1, b'0', 3, 1, b'1'];
        assert_eq!(names, expected);
    }

    #[test]
    fn each_function_is_followed_by_the_one_most_like_it() {
        let a: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8];
        let b: &[u8] = &[0, 2, 9, 9, 9, 9, 9, 9, 9];
        let c: &[u8] = &[0, 3, 1, 2, 3, 4, 5, 6, 7];
        // Sorted by their first bytes: a, b, c; c shares two runs with a, b none.
        assert_eq!(likeness_order(&[0, 0, 0], &[a, b, c]), [0, 2, 1]);
        // Another signature stays in a group of its own, groups in type order.
        assert_eq!(likeness_order(&[1, 0, 1], &[a, b, c]), [1, 0, 2]);
    }

    #[test]
    fn a_truncated_module_is_an_error_not_a_panic() {
        let module = b"\0asm\x01\0\0\0\x0a\x05\x01".to_vec();
        assert!(name_by_likeness(&module).is_err());
        assert!(name_by_likeness(b"not wasm").is_err());
    }
}
