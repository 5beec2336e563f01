//! Short names for the wasm's exports, in the module, its JS glue and its
//! declarations.
//!
//! wasm-bindgen exports a function per method of the JS API under the
//! method's class and name (`mcpclient_listResourceTemplates`) and its
//! closure shims under long generated names, and the glue calls each as
//! `wasm.<name>`: some 1.2 KB of names in each file. The packer renames
//! every exported function to one or two letters, in the export section,
//! in the glue's `wasm.<name>` calls and in the two declaration files that
//! list the exports (`InitOutput` and the `_bg.wasm.d.ts`); the memory and
//! the globals keep their names (`InitOutput` hands the memory to the page,
//! and the glue reads no global). On
//! the lite package, about 0.5 KB of the wasm's gzip and 0.1 KB of the
//! glue's (docs/size.md, session 29).
//!
//! By exact text, as [`super::imports`] does: a glue that still names an
//! export as a property in any other way after the rewrite (`.name`,
//! `"name"`, `'name'`), or a declaration file that does not declare each
//! export once, stops the packer with the name, rather than shipping glue
//! that calls what the module no longer exports.

use super::imports::short_name;
use super::{leb, name, section, sections};

/// `module`, `glue` and each of `declarations` with every exported function
/// renamed: `(wasm, glue, declarations)`.
pub fn shorten(module: &[u8], glue: &str, declarations: &[String]) -> Result<(Vec<u8>, String, Vec<String>), String> {
    let mut out = module[..8].to_vec();
    let mut glue = glue.to_string();
    let mut declarations = declarations.to_vec();
    for part in &sections(module)? {
        if part.id != 7 {
            out.extend_from_slice(&module[part.start..part.end]);
            continue;
        }
        let mut reader = part.payload(module);
        let count = reader.leb()?;
        let mut payload = Vec::new();
        leb(&mut payload, count);
        for i in 0..count {
            let old = reader.name()?;
            let kind = reader.byte()?;
            let index = reader.leb()?;
            // Kind 0: a function.
            let new = if kind == 0 { short_name(i as usize) } else { old.to_string() };
            if new != old {
                glue = rename_in_glue(&glue, old, &new)?;
                for text in &mut declarations {
                    *text = rename_declared(text, old, &new)?;
                }
            }
            name(&mut payload, &new);
            payload.push(kind);
            leb(&mut payload, index);
        }
        section(&mut out, 7, &payload);
    }
    Ok((out, glue, declarations))
}

/// Whether `c` can continue a JS identifier.
fn identifier(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// `glue` with each `wasm.<old>` (not followed by more of an identifier)
/// made `wasm.<new>`; an error if `old` is still a property name after it.
fn rename_in_glue(glue: &str, old: &str, new: &str) -> Result<String, String> {
    let call = format!("wasm.{old}");
    let mut out = String::with_capacity(glue.len());
    let mut rest = glue;
    while let Some(at) = rest.find(&call) {
        let after = &rest[at + call.len()..];
        out.push_str(&rest[..at]);
        if after.starts_with(identifier) {
            out.push_str(&call);
        } else {
            out.push_str("wasm.");
            out.push_str(new);
        }
        rest = after;
    }
    out.push_str(rest);
    let left = [format!(".{old}"), format!("\"{old}\""), format!("'{old}'")];
    for form in &left {
        let mut from = 0;
        while let Some(at) = out[from..].find(form.as_str()) {
            let end = from + at + form.len();
            if !out[end..].starts_with(identifier) || form.ends_with(['"', '\'']) {
                return Err(format!("the glue still names the export {old} as {form:?}: cannot rename it"));
            }
            from = end;
        }
    }
    Ok(out)
}

/// `text` with the one declaration of `old` (`readonly old:` in
/// `InitOutput`, `export const old:` in the `_bg.wasm.d.ts`) renamed.
fn rename_declared(text: &str, old: &str, new: &str) -> Result<String, String> {
    for form in ["readonly ", "export const "] {
        let declared = format!("{form}{old}:");
        match text.matches(&declared).count() {
            0 => continue,
            1 => return Ok(text.replacen(&declared, &format!("{form}{new}:"), 1)),
            n => return Err(format!("a declaration file declares {old} {n} times: cannot rename it")),
        }
    }
    Err(format!("a declaration file does not declare the export {old}: cannot rename it"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wasm::alone;

    /// A module exporting `names` (functions 0, 1, ...; `memory` as memory
    /// 0, a name in capitals as global 0) and nothing else.
    fn module(names: &[&str]) -> Vec<u8> {
        let mut exports = vec![names.len() as u8];
        for (i, export) in names.iter().enumerate() {
            name(&mut exports, export);
            let kind = match *export {
                "memory" => 2,
                global if global.starts_with(|c: char| c.is_ascii_uppercase()) => 3,
                _ => 0,
            };
            exports.extend([kind, i as u8]);
        }
        let mut module = b"\0asm\x01\0\0\0".to_vec();
        module.extend(alone(7, &exports));
        module
    }

    #[test]
    fn exports_are_renamed_in_the_module_the_glue_and_the_declarations() {
        let glue = "export function f() { wasm.mcpclient_ping(wasm.memory); return wasm.mcpclient_pingAll(); }";
        let declarations = [
            "readonly memory: WebAssembly.Memory;\nreadonly mcpclient_ping: () => void;\nreadonly mcpclient_pingAll: () => void;",
            "export const memory: WebAssembly.Memory;\nexport const mcpclient_ping: () => void;\nexport const mcpclient_pingAll: () => void;",
        ]
        .map(String::from);
        let exported = module(&["memory", "mcpclient_ping", "ABORT", "mcpclient_pingAll"]);
        let (wasm, glue, declared) = shorten(&exported, glue, &declarations).expect("renamed");
        // The memory and the global keep their names; each function is
        // named by its place among the exports.
        assert_eq!(wasm, module(&["memory", "b", "ABORT", "d"]));
        assert_eq!(glue, "export function f() { wasm.b(wasm.memory); return wasm.d(); }");
        assert_eq!(
            declared[0],
            "readonly memory: WebAssembly.Memory;\nreadonly b: () => void;\nreadonly d: () => void;"
        );
        assert_eq!(
            declared[1],
            "export const memory: WebAssembly.Memory;\nexport const b: () => void;\nexport const d: () => void;"
        );
    }

    #[test]
    fn a_local_function_of_the_same_name_stays() {
        // The glue's closure wrappers are local functions named like the
        // export they call.
        let glue = "function shim_1(a) { wasm.shim_1(a); }\nmakeClosure(shim_1);";
        let (_, glue, _) = shorten(&module(&["shim_1"]), glue, &[]).expect("renamed");
        assert_eq!(glue, "function shim_1(a) { wasm.a(a); }\nmakeClosure(shim_1);");
    }

    #[test]
    fn an_export_the_glue_reaches_another_way_stops_the_packer() {
        for glue in ["exports.ping()", "wasm[\"ping\"]()", "get('ping')"] {
            let error = shorten(&module(&["ping"]), glue, &[]).expect_err(glue);
            assert!(error.contains("ping"), "{error}");
        }
    }

    #[test]
    fn a_declaration_file_without_the_export_stops_the_packer() {
        let error = shorten(&module(&["ping"]), "wasm.ping()", &["readonly pong: () => void;".to_string()])
            .expect_err("undeclared");
        assert!(error.contains("does not declare the export ping"), "{error}");
    }
}
