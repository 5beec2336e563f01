//! `cargo xtask size`: what the npm package weighs in a browser, against the
//! official TypeScript SDK, and what the .wasm is made of.
//!
//! The figures are those of `cargo xtask package`'s output (release build,
//! wasm-bindgen, wasm-opt). The contributors come from a twin build that
//! keeps the function names (the release profile strips them; the code is
//! the same), read by twiggy.

use crate::package::{self, file_size, gzip_size, rel};
use crate::setup::{self, Step, WASM_TARGET};
use crate::util::{Res, capture, cargo, cmd, root, run_echo};
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The official TypeScript SDK's browser bundle for Client +
/// StreamableHTTPClientTransport + auth + SSEClientTransport, minified.
const TS_SDK_MIN: u64 = 324_799;
/// The same, gzipped.
const TS_SDK_GZIP: u64 = 93_712;
/// Where we want the whole client to be, gzipped.
const TARGET_GZIP: u64 = 45_000;
/// A profile like release that keeps the name section.
const NAMED_PROFILE: &str = "wasm-size-names";

pub fn size() -> Res {
    setup::setup(&[Step::Twiggy])?;
    let built = package::build()?;

    // What a page loads: the entry shim, the glue and the .wasm.
    let entry = built.dir.join("index.js");
    let glue = built.glue();
    let wasm = built.wasm();
    let min_glue = minified(&glue)?;
    let min_entry = minified(&entry)?;
    let rows: Vec<(String, u64, u64)> = vec![
        ("mcp_edge_bg.wasm".into(), file_size(&wasm)?, gzip_size(&wasm)?),
        ("mcp_edge.js (glue)".into(), file_size(&glue)?, gzip_size(&glue)?),
        ("index.js (browser entry)".into(), file_size(&entry)?, gzip_size(&entry)?),
    ];
    let min_rows: Vec<(String, u64, u64)> = match (&min_glue, &min_entry) {
        (Some(g), Some(e)) => vec![
            ("mcp_edge_bg.wasm".into(), file_size(&wasm)?, gzip_size(&wasm)?),
            ("mcp_edge.js, minified".into(), file_size(g)?, gzip_size(g)?),
            ("index.js, minified".into(), file_size(e)?, gzip_size(e)?),
        ],
        _ => Vec::new(),
    };

    println!("\n==> size of the npm package in a browser ({})", rel(&built.dir));
    println!("  (gzip -9; the TypeScript SDK's Client + Streamable HTTP + auth + SSE browser bundle:");
    println!("   {TS_SDK_MIN} bytes minified, {TS_SDK_GZIP} gzip; target: < {TARGET_GZIP} gzip)\n");
    table("as packed", &rows);
    if !min_rows.is_empty() {
        table("as a bundler ships it (JS minified by esbuild)", &min_rows);
    }

    println!("\n==> largest contributors to the .wasm");
    let named = named_wasm()?;
    let twiggy_top = capture(cmd("twiggy").args(["top", "-n", "20"]).arg(&named))?;
    println!("$ twiggy top -n 20 {}\n{twiggy_top}", rel(&named));
    println!("(the \"function names\" row is the name section this twin keeps: the shipped .wasm has none)\n");
    let csv = capture(cmd("twiggy").args(["top", "-n", "1000000", "--format", "csv"]).arg(&named))?;
    by_crate(&csv);
    Ok(())
}

fn table(title: &str, rows: &[(String, u64, u64)]) {
    println!("  {title}:");
    println!("    {:<28} {:>10} {:>10}", "", "bytes", "gzip");
    for (name, raw, gz) in rows {
        println!("    {name:<28} {raw:>10} {gz:>10}");
    }
    let raw: u64 = rows.iter().map(|r| r.1).sum();
    let gz: u64 = rows.iter().map(|r| r.2).sum();
    println!("    {:<28} {raw:>10} {gz:>10}", "total");
    println!(
        "    vs the TS SDK: {:.2}x its minified bytes, {:.2}x its gzip bytes; {:.2}x the {TARGET_GZIP} gzip target ({})",
        raw as f64 / TS_SDK_MIN as f64,
        gz as f64 / TS_SDK_GZIP as f64,
        gz as f64 / TARGET_GZIP as f64,
        if gz < TARGET_GZIP { "met".to_string() } else { format!("{} gzip bytes over", gz - TARGET_GZIP) }
    );
}

/// `esbuild --minify` of a JS file into target/npm/size/, or None without
/// the pinned esbuild (tests/npm).
fn minified(js: &Path) -> Res<Option<PathBuf>> {
    let esbuild = root().join("tests/npm/node_modules/.bin/esbuild");
    if !esbuild.is_file() {
        return Ok(None);
    }
    let out = size_dir()?.join(js.file_name().unwrap_or_default()).with_extension("min.js");
    // --format=esm keeps the exports; nothing is bundled.
    capture(
        cmd(&esbuild)
            .arg(js)
            .args(["--minify", "--format=esm", "--log-level=warning"])
            .arg(format!("--outfile={}", out.display())),
    )?;
    Ok(Some(out))
}

fn size_dir() -> Res<PathBuf> {
    let dir = root().join("target").join("npm").join("size");
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

/// The release build with its function names, through wasm-bindgen the way
/// the package's is: the twin profile keeps the name section, and its
/// `target_features` section is dropped so that wasm-bindgen makes the same
/// choices as for the stripped release build.
fn named_wasm() -> Res<PathBuf> {
    run_echo(cmd(cargo()).args([
        "build",
        "--lib",
        "--target",
        WASM_TARGET,
        "--config",
        &format!("profile.{NAMED_PROFILE}.inherits=\"release\""),
        "--config",
        &format!("profile.{NAMED_PROFILE}.strip=false"),
        "--config",
        &format!("profile.{NAMED_PROFILE}.debug=false"),
        "--profile",
        NAMED_PROFILE,
    ]))?;
    let built = root().join("target").join(WASM_TARGET).join(NAMED_PROFILE).join("mcp_edge.wasm");
    let dir = size_dir()?.join("named");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let input = dir.join("mcp_edge.wasm");
    let bytes = fs::read(&built).map_err(|e| format!("cannot read {}: {e}", built.display()))?;
    let bytes = without_custom_sections(&bytes, &["target_features"])?;
    fs::write(&input, bytes).map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let out = dir.join("bindgen");
    run_echo(cmd("wasm-bindgen").args(["--target", "web", "--out-dir"]).arg(&out).arg(&input))?;
    // mcp_edge_bg.wasm as a rule (the name may follow the module's name section).
    fs::read_dir(&out)
        .map_err(|e| format!("cannot list {}: {e}", out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "wasm"))
        .ok_or_else(|| format!("wasm-bindgen left no .wasm in {}", out.display()))
}

/// A wasm module without the custom sections of these names.
fn without_custom_sections(bytes: &[u8], names: &[&str]) -> Res<Vec<u8>> {
    if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
        return Err("not a wasm module".into());
    }
    let mut out = bytes[..8].to_vec();
    let mut at = 8;
    while at < bytes.len() {
        let start = at;
        let id = bytes[at];
        at += 1;
        let len = leb128(bytes, &mut at)? as usize;
        let end = at.checked_add(len).filter(|&e| e <= bytes.len()).ok_or("truncated wasm section")?;
        let drop = id == 0 && {
            let mut p = at;
            let name_len = leb128(bytes, &mut p)? as usize;
            bytes.get(p..p + name_len).is_some_and(|n| names.iter().any(|want| want.as_bytes() == n))
        };
        if !drop {
            out.extend_from_slice(&bytes[start..end]);
        }
        at = end;
    }
    Ok(out)
}

fn leb128(bytes: &[u8], at: &mut usize) -> Res<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at).ok_or("truncated LEB128")?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("LEB128 too long".into())
}

/// Sums twiggy's rows by crate (approximate: a generic function counts for
/// the crate of its path, `<A as B>::f` for A's crate, or B's when A is a
/// standard library type).
fn by_crate(csv: &str) {
    let mut sums: HashMap<String, u64> = HashMap::new();
    let mut names_section = 0;
    for line in csv.lines().skip(1) {
        let Some((name, bytes)) = csv_name_and_size(line) else {
            continue;
        };
        // The name section (function, local, module names): absent from the
        // shipped build.
        if name.ends_with("names\" subsection")
            || name.ends_with("name\" subsection")
            || name.starts_with("custom section 'name'")
        {
            names_section += bytes;
            continue;
        }
        *sums.entry(crate_of(&name)).or_default() += bytes;
    }
    let total: u64 = sums.values().sum();
    let mut rows: Vec<(String, u64)> = sums.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    println!("by crate (raw bytes of the .wasm before wasm-opt, names section of {names_section} bytes left out):");
    for (name, bytes) in rows.iter().take(20) {
        println!("  {bytes:>8}  {:>5.1}%  {name}", 100.0 * *bytes as f64 / total.max(1) as f64);
    }
    println!("  {total:>8}  100.0%  total");
}

/// `name,size,...` where the name may be quoted with "" escapes.
fn csv_name_and_size(line: &str) -> Option<(String, u64)> {
    let (name, rest) = if let Some(quoted) = line.strip_prefix('"') {
        let mut name = String::new();
        let mut chars = quoted.char_indices().peekable();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            if c == '"' {
                if chars.peek().is_some_and(|&(_, c)| c == '"') {
                    chars.next();
                    name.push('"');
                } else {
                    end = Some(i + 1);
                    break;
                }
            } else {
                name.push(c);
            }
        }
        (name, quoted.get(end?..)?.strip_prefix(',')?)
    } else {
        let (name, rest) = line.split_once(',')?;
        (name.to_string(), rest)
    };
    let bytes = rest.split(',').next()?.parse().ok()?;
    Some((name, bytes))
}

/// The crate a twiggy item belongs to (see `by_crate`).
fn crate_of(item: &str) -> String {
    // Sections: "data[0]", "type[3]: (i32) -> nil", "elem[0]", "wasm magic bytes"...
    let kind = item.split('[').next().unwrap_or_default();
    if item.contains('[') && ["data", "elem", "table", "global", "memory", "type"].contains(&kind) {
        return if kind == "data" {
            "(data: strings, tables, constants)".into()
        } else {
            "(types, tables, globals)".into()
        };
    }
    if item.starts_with("custom section") || item.ends_with(" headers") || item == "wasm magic bytes" {
        return "(section headers, custom sections)".into();
    }
    if item.starts_with("Closure(") {
        return "wasm_bindgen".into();
    }
    // Crate names carry a hash in brackets: core[c5930c85a12de822]::...
    let mut plain = String::with_capacity(item.len());
    let mut rest = item;
    while let Some(open) = rest.find('[') {
        plain.push_str(&rest[..open]);
        match rest[open..].find(']') {
            Some(close) if rest[open + 1..open + close].chars().all(|c| c.is_ascii_hexdigit()) => {
                rest = &rest[open + close + 1..];
            }
            _ => {
                plain.push('[');
                rest = &rest[open + 1..];
            }
        }
    }
    plain.push_str(rest);
    let first_crate = |path: &str| -> Option<String> {
        let path = path.trim_start_matches(['<', '&', '*', ' ']);
        let path = path.strip_prefix("mut ").or_else(|| path.strip_prefix("dyn ")).unwrap_or(path);
        let (head, _) = path.split_once("::")?;
        head.chars().all(|c| c.is_ascii_alphanumeric() || c == '_').then(|| head.to_string())
    };
    const STD: &[&str] = &["core", "alloc", "std"];
    if let Some(inner) = plain.strip_prefix('<')
        && let Some((ty, rest)) = inner.split_once(" as ")
    {
        let trait_crate = first_crate(rest);
        return match first_crate(ty) {
            Some(c) if !STD.contains(&c.as_str()) => c,
            ty_crate => trait_crate.or(ty_crate).unwrap_or_else(|| "(other)".into()),
        };
    }
    first_crate(&plain).unwrap_or_else(|| {
        if plain.starts_with('<') || plain.contains("::") {
            "core (primitives)".into()
        } else {
            "(exports, shims, memcpy...: no crate path)".into()
        }
    })
}
