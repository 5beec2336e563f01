//! Function table entries that nothing can reach, pointed elsewhere so the
//! functions they kept leave the module.
//!
//! wasm-bindgen's describe functions take the address of a closure's
//! `invoke` shim for each closure type of the imports the crate links
//! (`inform(invoke::<..> as usize as u32)`), and taking an address puts the
//! function in the table. The CLI runs the describe functions and deletes
//! them, but the table keeps the entries, and with them shims the glue
//! never calls: it calls a closure through the shims it exports. In the lite
//! wasm that was 32 shims, among them `forEach` callbacks of six kinds of
//! typed array (docs/size.md, session 29).
//!
//! wasm-bindgen's closure shims (`convert::closures::..::invoke`) are
//! never reached through the table at all: the glue calls the shims of the
//! closures the crate makes through exports of their own, and Rust takes a
//! shim's address only in the describe functions. So where the module has
//! a `name` section (the package keeps rustc's until this step), an entry
//! that names a shim is dropped whatever numbers the code holds. Those
//! numbers are small (a shim's index is a few hundred), and some constant
//! of the same value stood in the code for most of them: 19 shims of
//! closure types no code makes (`forEach` callbacks of `Set`, `Array`,
//! typed arrays) stayed in the lite wasm that way (docs/size.md, session 43).
//!
//! An entry is reached only through its index: code materializes it with
//! `i32.const` (a call through a function pointer, a pointer handed to JS)
//! and a vtable holds it as a 4-byte word in a data segment. An entry whose
//! index is in neither place is pointed at the table's first reachable
//! function, and binaryen's `--remove-unused-module-elements` then drops the
//! functions no one else names. The search errs on the side of keeping: the
//! bytes after any `0x41` (the `i32.const` opcode) in the code and global
//! sections are read as a number, and every 4 bytes at any offset of a data
//! segment, so a false match keeps an entry, never drops one. A module of
//! another shape than rustc's (more than one element segment, or one that is
//! not active at a constant offset, or a passive data segment) is returned
//! as it is, and so is one that exports its table (the glue could index it).

use super::{Reader, leb, section, sections};
use std::collections::HashSet;

/// `module` with its unreachable table entries pointed at a reachable
/// function, and how many there were (0: the module as it was).
pub fn drop_dead_entries(module: &[u8]) -> Result<(Vec<u8>, usize), String> {
    let sections = sections(module)?;
    let find = |id: u8| sections.iter().filter(move |s| s.id == id);
    let (Some(elements), None) = (find(9).next(), find(9).nth(1)) else {
        return Ok((module.to_vec(), 0));
    };
    if exports_a_table(module, find(7).next())? {
        return Ok((module.to_vec(), 0));
    }
    let Some((offset, functions)) = active_segment(&mut elements.payload(module))? else {
        return Ok((module.to_vec(), 0));
    };
    let mut used = HashSet::new();
    for code in find(10).chain(find(6)) {
        constants(&module[code.payload..code.end], &mut used);
    }
    for data in find(11) {
        if !data_words(&mut data.payload(module), &mut used)? {
            return Ok((module.to_vec(), 0));
        }
    }
    let shims = closure_shims(module, &sections)?;
    let reached = |i: usize| used.contains(&(u64::from(offset) + i as u64)) && !shims.contains(&functions[i]);
    let Some(stub) = (0..functions.len()).find(|&i| reached(i)).map(|i| functions[i]) else {
        return Ok((module.to_vec(), 0));
    };
    let dead = (0..functions.len()).filter(|&i| !reached(i)).count();
    if dead == 0 {
        return Ok((module.to_vec(), 0));
    }
    // The segment again, each unreachable entry naming `stub`.
    let mut payload = vec![1, 0, 0x41];
    sleb(&mut payload, i64::from(offset));
    payload.push(0x0b);
    leb(&mut payload, functions.len() as u64);
    for (i, &function) in functions.iter().enumerate() {
        leb(&mut payload, if reached(i) { function } else { stub });
    }
    let mut out = module[..elements.start].to_vec();
    section(&mut out, 9, &payload);
    out.extend_from_slice(&module[elements.end..]);
    Ok((out, dead))
}

/// The indices of the functions the `name` section names (in the index
/// space the element segment uses, imports first)
/// as wasm-bindgen closure shims; none without a `name` section.
fn closure_shims(module: &[u8], sections: &[super::Section]) -> Result<HashSet<u64>, String> {
    let mut shims = HashSet::new();
    let Some(names) = sections.iter().find(|s| s.is_custom(module, "name")) else { return Ok(shims) };
    let mut reader = names.payload(module);
    reader.name()?;
    while !reader.at_end() {
        let (kind, length) = (reader.byte()?, reader.leb()? as usize);
        let mut subsection = Reader { bytes: reader.take(length)?, at: 0 };
        // Subsection 1: function names.
        if kind != 1 {
            continue;
        }
        for _ in 0..subsection.leb()? {
            let index = subsection.leb()?;
            let name = subsection.name()?;
            if name.contains("::convert::closures::") && name.contains("::invoke") {
                shims.insert(index);
            }
        }
    }
    Ok(shims)
}

/// Whether the export section exports a table.
fn exports_a_table(module: &[u8], exports: Option<&super::Section>) -> Result<bool, String> {
    let Some(exports) = exports else { return Ok(false) };
    let mut reader = exports.payload(module);
    for _ in 0..reader.leb()? {
        reader.name()?;
        let kind = reader.byte()?;
        reader.leb()?;
        if kind == 1 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The offset and function indices of the element section's one segment,
/// if it is what rustc writes: active, table 0, at `i32.const offset`.
fn active_segment(reader: &mut Reader<'_>) -> Result<Option<(u32, Vec<u64>)>, String> {
    if reader.leb()? != 1 || reader.leb()? != 0 || reader.byte()? != 0x41 {
        return Ok(None);
    }
    let Ok(offset) = u32::try_from(reader.sleb()?) else { return Ok(None) };
    if reader.byte()? != 0x0b {
        return Ok(None);
    }
    let count = reader.leb()?;
    let mut functions = Vec::new();
    for _ in 0..count {
        functions.push(reader.leb()?);
    }
    Ok(Some((offset, functions)))
}

/// Every number that follows a `0x41` byte in `bytes`, read as a signed
/// LEB128 (padded or not), into `used`.
fn constants(bytes: &[u8], used: &mut HashSet<u64>) {
    for at in 0..bytes.len() {
        if bytes[at] == 0x41 {
            let mut reader = Reader { bytes, at: at + 1 };
            if let Ok(Ok(value)) = reader.sleb().map(u64::try_from) {
                used.insert(value);
            }
        }
    }
}

/// Every 4-byte little-endian word of the data section's segments, at any
/// offset, into `used`; false if a segment is not an active one at a
/// constant offset (its bytes could be copied anywhere).
fn data_words(reader: &mut Reader<'_>, used: &mut HashSet<u64>) -> Result<bool, String> {
    for _ in 0..reader.leb()? {
        if reader.leb()? != 0 || reader.byte()? != 0x41 {
            return Ok(false);
        }
        reader.sleb()?;
        if reader.byte()? != 0x0b {
            return Ok(false);
        }
        let length = reader.leb()? as usize;
        for word in reader.take(length)?.windows(4) {
            used.insert(u64::from(u32::from_le_bytes([word[0], word[1], word[2], word[3]])));
        }
    }
    Ok(true)
}

/// `value` as signed LEB128, appended to `out`.
fn sleb(out: &mut Vec<u8>, mut value: i64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if (value == 0 && byte & 0x40 == 0) || (value == -1 && byte & 0x40 != 0) {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wasm::alone;

    /// A module of three functions of type `() -> ()`, the table's segment
    /// at offset 1 naming `entries`, code whose first body is `body` (the
    /// others empty), `exports` if any, and the data section `data`.
    fn module(entries: &[u8], body: &[u8], exports: Option<&[u8]>, data: &[u8]) -> Vec<u8> {
        let mut module = b"\0asm\x01\0\0\0".to_vec();
        module.extend(alone(1, &[1, 0x60, 0, 0]));
        module.extend(alone(3, &[3, 0, 0, 0]));
        module.extend(alone(4, &[1, 0x70, 0, 8]));
        if let Some(exports) = exports {
            module.extend(alone(7, exports));
        }
        let mut segment = vec![1, 0, 0x41, 1, 0x0b, entries.len() as u8];
        segment.extend_from_slice(entries);
        module.extend(alone(9, &segment));
        let mut first = vec![0];
        first.extend_from_slice(body);
        first.push(0x0b);
        let mut code = vec![3, first.len() as u8];
        code.extend(first);
        code.extend([2, 0, 0x0b, 2, 0, 0x0b]);
        module.extend(alone(10, &code));
        module.extend(alone(11, data));
        module
    }

    /// A data section of one active segment of `bytes` at offset 8.
    fn active(bytes: &[u8]) -> Vec<u8> {
        let mut data = vec![1, 0, 0x41, 8, 0x0b, bytes.len() as u8];
        data.extend_from_slice(bytes);
        data
    }

    /// Code that takes table index 2 (`i32.const 2; drop`).
    const TAKES_2: &[u8] = &[0x41, 2, 0x1a];

    #[test]
    fn an_index_in_code_or_data_keeps_its_entry_and_the_others_name_the_first_kept() {
        // Table indices 1, 2, 3 hold functions 0, 1, 2. Code takes index 2,
        // data holds index 3 as a word at an odd offset; index 1 is named
        // nowhere, and comes to name function 1.
        let data = active(&[9, 3, 0, 0, 0]);
        let (after, dead) = drop_dead_entries(&module(&[0, 1, 2], TAKES_2, None, &data)).expect("rewritten");
        assert_eq!(dead, 1);
        assert_eq!(after, module(&[1, 1, 2], TAKES_2, None, &data));
    }

    #[test]
    fn a_padded_constant_counts_as_a_use() {
        // `i32.const 1` in five bytes, as a linker writes a relocation.
        let padded = [0x41, 0x81, 0x80, 0x80, 0x80, 0, 0x1a];
        let before = module(&[0, 1, 2], &padded, None, &active(&[2, 0, 0, 0, 3, 0, 0, 0]));
        assert_eq!(drop_dead_entries(&before).expect("read"), (before.clone(), 0));
    }

    #[test]
    fn an_exported_table_or_a_passive_data_segment_leaves_the_module_as_it_is() {
        let mut export = vec![1];
        crate::wasm::name(&mut export, "t");
        export.extend([1, 0]);
        let exported = module(&[0, 1, 2], TAKES_2, Some(&export), &active(&[]));
        assert_eq!(drop_dead_entries(&exported).expect("read"), (exported.clone(), 0));
        // A passive segment (flag 1) could be copied to any address.
        let passive = module(&[0, 1, 2], TAKES_2, None, &[1, 1, 2, 7, 7]);
        assert_eq!(drop_dead_entries(&passive).expect("read"), (passive.clone(), 0));
    }

    #[test]
    fn a_closure_shim_goes_whatever_the_code_holds() {
        // Function 1 (table index 2, which the code takes) is named as
        // wasm-bindgen's shim; function 2, at index 3, as anything else.
        let data = active(&[3, 0, 0, 0]);
        let mut names = Vec::new();
        crate::wasm::name(&mut names, "name");
        let mut functions = vec![2];
        for (index, name) in [(1u8, "wasm_bindgen::convert::closures::_::invoke::<(), true>"), (2, "mcp::f")] {
            functions.push(index);
            crate::wasm::name(&mut functions, name);
        }
        names.push(1);
        leb(&mut names, functions.len() as u64);
        names.extend(functions);
        let mut named = module(&[0, 1, 2], TAKES_2, None, &data);
        named.extend(alone(0, &names));
        let (after, dead) = drop_dead_entries(&named).expect("rewritten");
        // Index 1 (named nowhere) and index 2 (the shim) now name function 2.
        assert_eq!(dead, 2);
        let mut expected = module(&[2, 2, 2], TAKES_2, None, &data);
        expected.extend(alone(0, &names));
        assert_eq!(after, expected);
    }

    #[test]
    fn a_table_nothing_names_is_left_alone() {
        let unnamed = module(&[0, 1, 2], &[], None, &active(&[]));
        assert_eq!(drop_dead_entries(&unnamed).expect("read"), (unnamed.clone(), 0));
    }
}
