//! Short names for the wasm's imports, in the module and in its JS glue.
//!
//! wasm-bindgen names each import after the JS it calls and a hash
//! (`__wbg_fetch_a1b2c3d4e5f6a7b8`), from a module named after the glue
//! (`./mcp_edge_bg.js`), and the glue's import object spells each name out
//! again. The hashes are random hex, which neither gzip nor brotli can
//! shrink, and they are in both files. The packer renames every import to
//! one or two letters from the module `w`, in the wasm's import section and
//! in the glue's import object alike: on the lite package, -2.2 KB gzip of
//! the wasm and -1.8 KB of the glue (docs/size.md).
//!
//! The glue is rewritten by exact text: each old name must appear in it
//! once, as a key (`name:`), and the module once, as `"module":`; a glue of
//! another shape stops the packer with the name it could not find, rather
//! than shipping a module whose imports the glue does not provide.

use super::{imports, leb, name, section, sections};

/// `module` and `glue` with every import renamed: `(wasm, glue)`.
pub fn shorten(module: &[u8], glue: &str) -> Result<(Vec<u8>, String), String> {
    let sections = sections(module)?;
    let mut out = module[..8].to_vec();
    let mut glue = glue.to_string();
    for part in &sections {
        if part.id != 2 {
            out.extend_from_slice(&module[part.start..part.end]);
            continue;
        }
        let found = imports(&mut part.payload(module))?;
        let mut payload = Vec::new();
        leb(&mut payload, found.len() as u64);
        let mut from = None;
        for (i, import) in found.iter().enumerate() {
            match from {
                None => from = Some(import.module),
                Some(first) if first != import.module => {
                    return Err(format!("imports from two modules ({first}, {})", import.module));
                }
                Some(_) => {}
            }
            let short = short_name(i);
            glue = replace_once(&glue, &format!("{}:", import.name), &format!("{short}:"))?;
            name(&mut payload, SHORT_MODULE);
            name(&mut payload, &short);
            payload.extend_from_slice(import.description);
        }
        if let Some(from) = from {
            glue = replace_once(&glue, &format!("\"{from}\":"), &format!("\"{SHORT_MODULE}\":"))?;
        }
        section(&mut out, 2, &payload);
    }
    Ok((out, glue))
}

/// The module every import comes from after [`shorten`].
const SHORT_MODULE: &str = "w";

/// The `i`th short name: `a`..`z`, `A`..`Z`, then two letters, and so on.
pub(super) fn short_name(mut i: usize) -> String {
    const LETTERS: &[u8; 52] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut name = vec![LETTERS[i % 52]];
    i /= 52;
    while i > 0 {
        i -= 1;
        name.push(LETTERS[i % 52]);
        i /= 52;
    }
    name.reverse();
    String::from_utf8(name).unwrap_or_default()
}

/// `text` with its one `old` replaced by `new`; an error if `old` is not
/// there exactly once (the name itself may appear nowhere else either).
fn replace_once(text: &str, old: &str, new: &str) -> Result<String, String> {
    let bare = old.trim_end_matches(':');
    match (text.matches(old).count(), text.matches(bare).count()) {
        (1, 1) => Ok(text.replacen(old, new, 1)),
        (n, m) => Err(format!("the glue has {old:?} {n} times and {bare:?} {m} times, not once: cannot rename it")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wasm::alone;

    fn import(module: &str, field: &str, description: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        name(&mut out, module);
        name(&mut out, field);
        out.extend_from_slice(description);
        out
    }

    #[test]
    fn imports_are_renamed_in_the_module_and_the_glue_alike() {
        let mut imports = vec![2];
        imports.extend(import("./x_bg.js", "__wbg_fetch_0123456789abcdef", &[0, 0]));
        imports.extend(import("./x_bg.js", "__wbg_log_fedcba9876543210", &[2, 0, 1]));
        let mut module = b"\0asm\x01\0\0\0".to_vec();
        module.extend(alone(1, &[1, 0x60, 0, 0]));
        module.extend(alone(2, &imports));
        module.extend(alone(3, &[0]));
        let glue = "const import0 = { __wbg_fetch_0123456789abcdef: function() {}, \
                    __wbg_log_fedcba9876543210: function() {} };\nreturn { \"./x_bg.js\": import0 };";
        let (wasm, glue) = shorten(&module, glue).expect("renamed");
        assert_eq!(glue, "const import0 = { a: function() {}, b: function() {} };\nreturn { \"w\": import0 };");
        let mut expected = b"\0asm\x01\0\0\0".to_vec();
        expected.extend(alone(1, &[1, 0x60, 0, 0]));
        let mut renamed = vec![2];
        renamed.extend(import("w", "a", &[0, 0]));
        renamed.extend(import("w", "b", &[2, 0, 1]));
        expected.extend(alone(2, &renamed));
        expected.extend(alone(3, &[0]));
        assert_eq!(wasm, expected);
    }

    #[test]
    fn a_name_the_glue_does_not_have_once_stops_the_packer() {
        let mut imports = vec![1];
        imports.extend(import("./x_bg.js", "__wbg_f_00", &[0, 0]));
        let mut module = b"\0asm\x01\0\0\0".to_vec();
        module.extend(alone(2, &imports));
        let twice = "{ __wbg_f_00: 1 } __wbg_f_00 \"./x_bg.js\":";
        assert!(shorten(&module, twice).is_err());
        assert!(shorten(&module, "{ \"./x_bg.js\": 1 }").is_err());
    }

    #[test]
    fn short_names_are_distinct() {
        let names: Vec<String> = (0..3000).map(short_name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        assert_eq!((names[0].as_str(), names[51].as_str(), names[52].as_str()), ("a", "Z", "aa"));
    }
}
