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
//! Imports straight from a JS file beside the glue (`./snippets/...`, a
//! function wasm-bindgen calls without glue of its own) keep their module
//! and name. wasm-bindgen hands such a file to the module as a namespace
//! (`import * as import1 from "..."`), which keeps every export of the file
//! in a bundle (esbuild cannot tell which the module uses): the packer
//! imports the names the module uses instead ([`name_namespaces`]; -0.3 KB
//! gzip of the lite bundle, whose `fetch.js` has the full build's
//! EventSource code).
//!
//! The glue is rewritten by exact text: each old name must appear in it
//! once, as a key (`name:`), and the module once, as `"module":`; a glue of
//! another shape stops the packer with the name it could not find, rather
//! than shipping a module whose imports the glue does not provide.
//!
//! wasm-bindgen also writes one import per Rust declaration, so two
//! declarations of the same JS (`Iterator.done` for two Rust types, a
//! `cancel` of two stream types) are two imports with the same function in
//! the glue. Imports whose glue functions are the same text and whose wasm
//! types are the same get one name, and the glue keeps one of the
//! functions; binaryen's `--duplicate-import-elimination` then makes them
//! one import (6 of the lite module's 133, 8 of the full one's 148).

use std::collections::HashMap;

use super::{imports, leb, name, section, sections};

/// `module` and `glue` with every import renamed, and how many imports
/// were given the name of an identical one before them: `(wasm, glue,
/// merged)`.
pub fn shorten(module: &[u8], glue: &str) -> Result<(Vec<u8>, String, usize), String> {
    let sections = sections(module)?;
    let mut out = module[..8].to_vec();
    let definitions = glue_functions(glue);
    let mut glue = glue.to_string();
    let mut merged = 0;
    for part in &sections {
        if part.id != 2 {
            out.extend_from_slice(&module[part.start..part.end]);
            continue;
        }
        let found = imports(&mut part.payload(module))?;
        let mut payload = Vec::new();
        leb(&mut payload, found.len() as u64);
        let mut from = None;
        // (the import's wasm type, its glue function) -> its short name.
        let mut named: HashMap<(&[u8], &str), String> = HashMap::new();
        let mut distinct = 0;
        // What the module imports from each JS file directly.
        let mut from_files: Vec<(&str, Vec<&str>)> = Vec::new();
        for import in &found {
            // A function of a JS file beside the glue that needs no glue of
            // its own (no argument or result to convert) is imported from
            // that file directly, under its own name: kept as it is.
            if import.module.starts_with(SNIPPETS) {
                name(&mut payload, import.module);
                name(&mut payload, import.name);
                payload.extend_from_slice(import.description);
                match from_files.iter_mut().find(|(module, _)| *module == import.module) {
                    Some((_, names)) if names.contains(&import.name) => {}
                    Some((_, names)) => names.push(import.name),
                    None => from_files.push((import.module, vec![import.name])),
                }
                continue;
            }
            match from {
                None => from = Some(import.module),
                Some(first) if first != import.module => {
                    return Err(format!("imports from two modules ({first}, {})", import.module));
                }
                Some(_) => {}
            }
            let definition = definitions.get(import.name).copied();
            let key = definition.map(|(_, text)| (import.description, text));
            let short = match (definition, key.and_then(|key| named.get(&key))) {
                (Some((entry, _)), Some(short)) => {
                    // The glue keeps the first function; this one goes.
                    glue = replace_once(&glue, entry, "")?;
                    merged += 1;
                    short.clone()
                }
                _ => {
                    let short = short_name(distinct);
                    distinct += 1;
                    glue = replace_once(&glue, &format!("{}:", import.name), &format!("{short}:"))?;
                    if let Some(key) = key {
                        named.insert(key, short.clone());
                    }
                    short
                }
            };
            name(&mut payload, SHORT_MODULE);
            name(&mut payload, &short);
            payload.extend_from_slice(import.description);
        }
        if let Some(from) = from {
            glue = replace_once(&glue, &format!("\"{from}\":"), &format!("\"{SHORT_MODULE}\":"))?;
        }
        for (module, names) in &from_files {
            glue = name_namespaces(&glue, module, names)?;
        }
        section(&mut out, 2, &payload);
    }
    Ok((out, glue, merged))
}

/// The functions of the glue's import object, by name: each entry's whole
/// text (from its indentation to the next entry's) and its text after the
/// name. wasm-bindgen writes one entry per import, a key at eight spaces
/// (`        name: function(arg0) {`) with its body indented deeper; a glue
/// of another shape gives none, and then no import is merged.
fn glue_functions(glue: &str) -> HashMap<&str, (&str, &str)> {
    const INDENT: &str = "\n        ";
    let mut found = HashMap::new();
    let Some(start) = glue.find("const import0 = {") else { return found };
    let Some(length) = glue[start..].find("\n    };") else { return found };
    let object = &glue[start..start + length];
    // Where each entry begins: a newline, eight spaces, a name, `: `.
    let mut starts: Vec<usize> = object
        .match_indices(INDENT)
        .map(|(at, _)| at)
        .filter(|&at| {
            let rest = &object[at + INDENT.len()..];
            let name_length = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')).unwrap_or(0);
            name_length > 0 && rest[name_length..].starts_with(": ")
        })
        .collect();
    starts.push(object.len());
    for pair in starts.windows(2) {
        let entry = &object[pair[0]..pair[1]];
        if let Some((key, text)) = entry[INDENT.len()..].split_once(": ") {
            found.insert(key, (entry, text));
        }
    }
    found
}

/// `glue` with each namespace import of the JS file `module` (`import * as
/// import1 from "module"`, handed to the wasm as `"module": import1,`)
/// made an import of `names` alone, the ones the wasm imports from it.
/// wasm-bindgen writes one namespace import per Rust declaration block, so
/// there may be several of one file.
fn name_namespaces(glue: &str, module: &str, names: &[&str]) -> Result<String, String> {
    let tail = format!(" from \"{module}\"");
    // The aliases of this file's namespace imports, from lines of the form
    // `import * as importN from "module"`.
    let aliases: Vec<String> = glue
        .lines()
        .filter_map(|line| line.trim_end_matches(';').strip_prefix("import * as ")?.strip_suffix(tail.as_str()))
        .map(str::to_owned)
        .collect();
    let mut glue = glue.to_string();
    for alias in aliases {
        let imported: Vec<String> = names.iter().map(|name| format!("{name} as {alias}_{name}")).collect();
        let handed: Vec<String> = names.iter().map(|name| format!("{name}: {alias}_{name}")).collect();
        glue = replace_once(
            &glue,
            &format!("import * as {alias}{tail}"),
            &format!("import {{ {} }}{tail}", imported.join(", ")),
        )?;
        let key = format!("\"{module}\": {alias},");
        if glue.matches(&key).count() != 1 {
            return Err(format!("the glue hands {module} to the module as {alias} not once: cannot name its imports"));
        }
        glue = glue.replacen(&key, &format!("\"{module}\": {{ {} }},", handed.join(", ")), 1);
    }
    Ok(glue)
}

/// Where wasm-bindgen puts the JS files of `#[wasm_bindgen(module = ...)]`,
/// as the wasm's import modules name them.
const SNIPPETS: &str = "./snippets/";

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
        let (wasm, glue, merged) = shorten(&module, glue).expect("renamed");
        assert_eq!(merged, 0);
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
    fn imports_of_the_same_function_and_type_get_one_name_and_one_glue_function() {
        let mut imports = vec![4];
        imports.extend(import("./x_bg.js", "__wbg_done_01", &[0, 0]));
        imports.extend(import("./x_bg.js", "__wbg_len_02", &[0, 0]));
        imports.extend(import("./x_bg.js", "__wbg_done_03", &[0, 0]));
        // The same JS as the first, another wasm type: kept apart.
        imports.extend(import("./x_bg.js", "__wbg_done_04", &[0, 1]));
        let mut module = b"\0asm\x01\0\0\0".to_vec();
        module.extend(alone(1, &[2, 0x60, 0, 0, 0x60, 1, 0x7f, 0]));
        module.extend(alone(2, &imports));
        let done = ": function(arg0) {\n            return getObject(arg0).done;\n        },";
        let glue = format!(
            "    const import0 = {{\n        __proto__: null,\n        __wbg_done_01{done}\n        \
             __wbg_len_02: function(arg0) {{\n            return getObject(arg0).length;\n        }},\n        \
             __wbg_done_03{done}\n        __wbg_done_04{done}\n    }};\n    return {{ \"./x_bg.js\": import0 }};"
        );
        let (wasm, glue, merged) = shorten(&module, &glue).expect("renamed");
        assert_eq!(merged, 1);
        assert_eq!(
            glue,
            format!(
                "    const import0 = {{\n        __proto__: null,\n        a{done}\n        \
                 b: function(arg0) {{\n            return getObject(arg0).length;\n        }},\n        \
                 c{done}\n    }};\n    return {{ \"w\": import0 }};"
            )
        );
        let mut renamed = vec![4];
        renamed.extend(import("w", "a", &[0, 0]));
        renamed.extend(import("w", "b", &[0, 0]));
        renamed.extend(import("w", "a", &[0, 0]));
        renamed.extend(import("w", "c", &[0, 1]));
        assert!(wasm.windows(renamed.len()).any(|w| w == renamed.as_slice()), "the import section names a twice");
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
    fn a_js_file_handed_over_whole_is_imported_by_the_names_the_module_uses() {
        let file = "./snippets/x/src/a.js";
        let glue = format!(
            "import {{ f }} from '{file}';\nimport * as import1 from \"{file}\"\nimport * as import2 from \"{file}\"\n\
             return {{ \"w\": import0, \"{file}\": import1, \"{file}\": import2, }};"
        );
        let named = name_namespaces(&glue, file, &["inBrowser", "hasIt"]).expect("named");
        assert_eq!(
            named,
            format!(
                "import {{ f }} from '{file}';\nimport {{ inBrowser as import1_inBrowser, hasIt as import1_hasIt }} \
                 from \"{file}\"\nimport {{ inBrowser as import2_inBrowser, hasIt as import2_hasIt }} from \"{file}\"\n\
                 return {{ \"w\": import0, \"{file}\": {{ inBrowser: import1_inBrowser, hasIt: import1_hasIt }}, \
                 \"{file}\": {{ inBrowser: import2_inBrowser, hasIt: import2_hasIt }}, }};"
            )
        );
        // A namespace the glue does not hand over once stops the packer.
        assert!(name_namespaces(&format!("import * as import1 from \"{file}\"\n"), file, &["f"]).is_err());
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
