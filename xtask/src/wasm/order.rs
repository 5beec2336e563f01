//! The order of a wasm module's functions, chosen for the compressor.
//!
//! rustc and wasm-bindgen lay functions out in the order they were made,
//! so the copies of one generic (a derived reader per struct, a
//! `drop_in_place` per type, a future's `poll` per async fn) are scattered
//! over the code section. gzip finds repeats only within 32 KB behind it,
//! and brotli's model also does best with like beside like. So the package
//! puts functions of the same signature side by side, and each where the
//! last 32 KB laid out repeat most of it ([`likeness_order`]): on the full
//! wasm, gzip -3.4% from the sort by signature and body alone, -0.7% more
//! from a chain of each beside the one most like it, -0.8% more from the
//! window (docs/size.md has the figures). Other keys were measured and
//! lost: by name (-0.9%), by crate and then size (-1.6%), by signature and
//! then size (-3.2%).
//!
//! binaryen moves the functions (`--reorder-functions-by-name`, which
//! renumbers every call and table entry); this module gives it the names
//! to sort: each defined function named by its rank in the order wanted.
//! The names are dropped again when binaryen writes the module.

use super::{Section, leb, section, sections};

/// `module` with a `name` section naming each defined function by its rank
/// in [`likeness_order`] of the given [`Shape`] (one of [`shapes`]).
pub fn name_by_likeness(module: &[u8], shape: Shape) -> Result<Vec<u8>, String> {
    let parsed = Functions::parse(module)?;
    if parsed.types.len() != parsed.bodies.len() {
        return Err(format!(
            "the wasm declares {} functions but has {} bodies",
            parsed.types.len(),
            parsed.bodies.len()
        ));
    }
    let order = likeness_order(&parsed.types, &parsed.bodies, shape);
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
/// the sort key that starts the order and breaks its ties: 24 measured best
/// of 4, 8, 24, 64 and all.
const LIKENESS_PREFIX: usize = 24;

/// How an order is made: bodies compared by their runs of `run` bytes,
/// each against the last `window` bytes laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub run: usize,
    pub window: usize,
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "runs of {}, a window of {} KB", self.run, self.window / 1024)
    }
}

/// The run lengths the packer tries.
const RUNS: std::ops::RangeInclusive<usize> = 5..=12;

/// The windows the packer tries: deflate's 32 KB (what gzip can copy
/// from), 4 KB more and 4 and 8 KB less. On the modules of session 44 a
/// window of 24 KB gave the smallest gzip of both wasm files (by 45 and
/// 91 B); 12, 16, 20 and 40 KB never did.
const WINDOWS: [usize; 4] = [24 * 1024, 28 * 1024, 32 * 1024, 36 * 1024];

/// The shapes the packer makes an order of, keeping the one gzip
/// compresses best: every run length of [`RUNS`] with every window of
/// [`WINDOWS`]. No one shape is best for every module: the order is a
/// chain of greedy choices, and it moves with small changes to the code.
/// Runs of 7 measured best of 5 to 9 when the order was made (session 31);
/// in session 43 runs of 8 were best for the full wasm and 7 for the lite
/// one. On the modules of session 44 the orders of 5 to 12 with 28, 32 and
/// 36 KB spread over 1 KB of gzip of the full wasm (186,043 to 187,054)
/// and 620 B of the lite one (152,457 to 153,081); the best of the four
/// tried before (runs of 6 to 9, 32 KB) were 186,165 and 152,639. The
/// sort that starts the chain keyed by 8 bytes of each body instead of 24
/// moved the gzip by 0-90 B, less than one more shape does, so it is not
/// among the shapes.
pub fn shapes() -> impl Iterator<Item = Shape> {
    RUNS.flat_map(|run| WINDOWS.into_iter().map(move |window| Shape { run, window }))
}

/// The functions' indices in the order wanted: a chain that starts at the
/// first of the functions sorted by signature and then by the start of the
/// body, and goes on with the function whose runs of `shape.run` bytes are
/// found most in the last `shape.window` bytes laid out, counted against the square root of how many
/// runs it has (so a large function that repeats much of the window beats a
/// small one that repeats a little of it). A signature's functions stay
/// together: the next one is of the current signature while any is left,
/// and the next signature is the one whose best function scores highest.
/// Ties go to the earlier in the sort, so a module always gets one order.
///
/// Against the chain this replaced (each function followed by the one most
/// like the one before it alone, signatures in the order of their index):
/// -0.7% gzip of the full wasm and -0.6% of the lite one (docs/size.md,
/// session 31); what carried it was the window, the square root and the
/// choice of the next signature, together.
fn likeness_order(types: &[u32], bodies: &[&[u8]], shape: Shape) -> Vec<usize> {
    let count = bodies.len();
    let mut sorted: Vec<usize> = (0..count).collect();
    // Stable, with the index last: the same module always gets the same order.
    sorted.sort_by_key(|&i| (types[i], &bodies[i][..bodies[i].len().min(LIKENESS_PREFIX)], i));
    let (runs, holders) = dense_runs(bodies, shape.run);
    // Per run: how many functions in the window have it; per function: how
    // many of its runs the window has.
    let mut in_window = vec![0u32; holders.len()];
    let mut covered = vec![0u64; count];
    let mut left_of_type = std::collections::HashMap::<u32, usize>::new();
    for &t in types {
        *left_of_type.entry(t).or_default() += 1;
    }
    let mut window = std::collections::VecDeque::new();
    let mut window_bytes = 0;
    let mut used = vec![false; count];
    let mut order = Vec::with_capacity(count);
    let Some(&first) = sorted.first() else { return order };
    let mut current = first;
    loop {
        order.push(current);
        used[current] = true;
        if let Some(left) = left_of_type.get_mut(&types[current]) {
            *left -= 1;
        }
        if order.len() == count {
            return order;
        }
        for &run in &runs[current] {
            in_window[run] += 1;
            if in_window[run] == 1 {
                holders[run].iter().for_each(|&f| covered[f] += 1);
            }
        }
        window.push_back(current);
        window_bytes += bodies[current].len();
        while window_bytes > shape.window && window.len() > 1 {
            let Some(oldest) = window.pop_front() else { break };
            window_bytes -= bodies[oldest].len();
            for &run in &runs[oldest] {
                in_window[run] -= 1;
                if in_window[run] == 0 {
                    holders[run].iter().for_each(|&f| covered[f] -= 1);
                }
            }
        }
        let same_type = left_of_type.get(&types[current]).is_some_and(|&left| left > 0);
        let mut best: Option<usize> = None;
        for &candidate in &sorted {
            if used[candidate] || (same_type && types[candidate] != types[current]) {
                continue;
            }
            // covered / sqrt(runs) greater than best's, in integers: the
            // squares compared, each side times the other's run count.
            let beats = |other: usize| {
                let score = |f: usize, g: usize| u128::from(covered[f]).pow(2) * runs[g].len().max(1) as u128;
                score(candidate, other) > score(other, candidate)
            };
            if best.is_none_or(beats) {
                best = Some(candidate);
            }
        }
        let Some(next) = best else { return order };
        current = next;
    }
}

/// Each body's distinct runs of `run` bytes as small numbers, and for each
/// such number the bodies that have it.
fn dense_runs(bodies: &[&[u8]], run: usize) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let keyed: Vec<Vec<u64>> = bodies.iter().map(|body| runs_of(body, run)).collect();
    let mut keys: Vec<u64> = keyed.iter().flatten().copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let mut holders = vec![Vec::new(); keys.len()];
    let runs = keyed
        .iter()
        .enumerate()
        .map(|(f, body_runs)| {
            body_runs
                .iter()
                .filter_map(|key| keys.binary_search(key).ok())
                .inspect(|&run| holders[run].push(f))
                .collect()
        })
        .collect();
    (runs, holders)
}

/// The distinct runs of `run` bytes in `body`, sorted. Each run is its own
/// key where it fits in a `u64` (eight bytes); a longer run keeps its last
/// eight, so runs of 9 count the 8-byte runs that follow another byte of a
/// body, which orders differently from runs of 8.
fn runs_of(body: &[u8], run: usize) -> Vec<u64> {
    let mut runs: Vec<u64> =
        body.windows(run).map(|run| run.iter().fold(0u64, |key, &byte| key << 8 | u64::from(byte))).collect();
    runs.sort_unstable();
    runs.dedup();
    runs
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

    const SEVEN: Shape = Shape { run: 7, window: 32 * 1024 };

    #[test]
    fn every_run_length_is_tried_with_every_window() {
        let all: Vec<Shape> = shapes().collect();
        assert_eq!(all.len(), 32);
        assert!(all.contains(&SEVEN));
        assert!(all.contains(&Shape { run: 12, window: 36 * 1024 }));
        assert_eq!(SEVEN.to_string(), "runs of 7, a window of 32 KB");
    }

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
        let named = name_by_likeness(&module, SEVEN).expect("a valid module");
        assert_eq!(&named[..module.len()], &module[..], "the module is kept as it was");
        // Named again, the names given first are replaced, not repeated.
        assert_eq!(name_by_likeness(&named, SEVEN).expect("a valid module"), named);
        // Sorted: index 2 (type 0), index 3 (type 1, `unreachable` is 0x00),
        // index 1 (type 1, `nop` is 0x01).
        let names = &named[module.len()..];
        let expected: &[u8] = &[0, 17, 4, b'n', b'a', b'm', b'e', 1, 10, 3, 1, 1, b'2', 2, 1, b'0', 3, 1, b'1'];
        assert_eq!(names, expected);
    }

    #[test]
    fn each_function_is_followed_by_the_one_the_window_has_most_of() {
        let a: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8];
        let b: &[u8] = &[0, 2, 9, 9, 9, 9, 9, 9, 9];
        let c: &[u8] = &[0, 3, 1, 2, 3, 4, 5, 6, 7];
        // Sorted by their first bytes: a, b, c; c shares a run with a, b none.
        assert_eq!(likeness_order(&[0, 0, 0], &[a, b, c], SEVEN), [0, 2, 1]);
        // Another signature stays in a group of its own.
        assert_eq!(likeness_order(&[1, 0, 1], &[a, b, c], SEVEN), [1, 0, 2]);
        // d shares a run with a, not with c, which comes just before it:
        // a and c are both in the window, so d comes before b.
        let d: &[u8] = &[0, 4, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(likeness_order(&[0, 0, 0, 0], &[a, b, c, d], SEVEN), [0, 2, 3, 1]);
        // No functions, no order (and no panic).
        assert_eq!(likeness_order(&[], &[], SEVEN), Vec::<usize>::new());
    }

    #[test]
    fn the_next_signature_is_chosen_by_the_window() {
        let a: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8];
        let b: &[u8] = &[0, 2, 9, 9, 9, 9, 9, 9, 9];
        let c: &[u8] = &[0, 3, 1, 2, 3, 4, 5, 6, 7];
        // a alone of type 0; then b (type 1) and c (type 2): c shares a run
        // with a, b none, so c's signature comes first.
        assert_eq!(likeness_order(&[0, 1, 2], &[a, b, c], SEVEN), [0, 2, 1]);
    }

    #[test]
    fn a_truncated_module_is_an_error_not_a_panic() {
        let module = b"\0asm\x01\0\0\0\x0a\x05\x01".to_vec();
        assert!(name_by_likeness(&module, SEVEN).is_err());
        assert!(name_by_likeness(b"not wasm", SEVEN).is_err());
    }
}
