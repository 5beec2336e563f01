//! A small JSON Schema (2020-12) validator for what MCP asks a client to
//! check: a tool's `structuredContent` against its `outputSchema`. It
//! interprets the schema (no code generation, so it runs where `eval` and
//! `new Function` are forbidden, e.g. workerd) and names the path that
//! failed.
//!
//! Supported: `type`, `enum`, `const`, `properties`, `required`,
//! `additionalProperties`, `minProperties`, `maxProperties`,
//! `dependentRequired`, `items`, `prefixItems`, `minItems`, `maxItems`,
//! `uniqueItems`, `minLength`, `maxLength`, `minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `allOf`, `anyOf`,
//! `oneOf`, `not`, `if`/`then`/`else`, boolean schemas, and `$ref` to
//! `#` and `#/...` JSON pointers in the same document (`$defs`).
//! Not supported, and ignored (taken as annotations, so valid data is never
//! refused for them): `pattern`, `patternProperties`, `propertyNames`,
//! `format`, `contains`, `unevaluated*`, `dependentSchemas`, `$dynamicRef`,
//! `$anchor`, remote `$ref`s. Chosen over a crate by size: no regex engine;
//! it costs 12,906 bytes of the release wasm (4,835 gzip, 1.2%), measured
//! as that build with and without it (docs/size.md).

use std::borrow::Cow;
use std::cell::Cell;

use serde_json::{Map, Number, Value};

use self::keywords::Keywords;
pub(crate) use self::values::{equal, equal_pair, quoted};
use crate::debug::Quoted;
use crate::protocol::json::Shown;

mod keywords;
mod values;

/// Why a value does not match its schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct SchemaError {
    /// Where, as a JSON pointer into the value (`` for the root: shown as `/`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// How deep `$ref`s may nest before the schema is taken as a loop.
const MAX_DEPTH: usize = 64;

/// How much work one check may take: a step is a subschema applied to a
/// value, a member of the schema object read for it, or an entry of an
/// `enum`, `type`, `required` or `dependentRequired` list, or an item of a
/// `uniqueItems` array. Both the schema and the value come from the server, and
/// without a bound a few `anyOf`s of two `$ref`s each double the work at
/// every level (2^32 steps within `MAX_DEPTH`), and `uniqueItems` over
/// 100,000 items compares 5 billion pairs: a browser tab would freeze.
/// Checking a result of a few megabytes takes some hundred thousand.
const MAX_STEPS: u64 = 2_000_000;

/// How much of a value or schema an error message quotes.
pub(crate) const QUOTED: usize = 120;

/// Checks `value` against `schema` (the root of its own document).
pub fn validate(schema: &Value, value: &Value) -> Result<(), SchemaError> {
    let validator = Validator { root: schema, steps: Cell::new(0) };
    let outcome = validator.check(schema, value, &mut String::new(), 0);
    // A check that ran out of steps inside `anyOf`, `oneOf`, `not` or `if`
    // was taken there as a mismatch: its verdict is none either way.
    if validator.steps.get() > MAX_STEPS {
        return fail("", format!("checking it takes more than {MAX_STEPS} steps, too many to finish"));
    }
    outcome
}

struct Validator<'a> {
    root: &'a Value,
    steps: Cell<u64>,
}

impl Validator<'_> {
    /// Counts `n` steps; false once the check has taken more than it may.
    fn step(&self, n: u64) -> bool {
        let steps = self.steps.get().saturating_add(n);
        self.steps.set(steps);
        steps <= MAX_STEPS
    }
}

/// The check ran out of steps here; [`validate`] reports it as a whole.
fn too_many_steps(path: &str) -> Result<(), SchemaError> {
    fail(path, "the check took too many steps".into())
}

fn fail(path: &str, message: String) -> Result<(), SchemaError> {
    Err(SchemaError { path: if path.is_empty() { "/".to_owned() } else { path.to_owned() }, message })
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn has_type(value: &Value, name: &str) -> bool {
    let actual = type_name(value);
    actual == name || (name == "number" && actual == "integer")
}

/// `step` added to a JSON pointer, escaped (RFC 6901) in one pass with no
/// copy of it: most property names have no `~` or `/` to escape.
fn push_step(path: &mut String, step: &str) {
    path.push('/');
    let mut rest = step;
    while let Some(at) = crate::ascii::find_any(rest, b"~/") {
        path.push_str(&rest[..at]);
        path.push_str(if rest.as_bytes()[at] == b'~' { "~0" } else { "~1" });
        rest = &rest[at + 1..];
    }
    path.push_str(rest);
}

fn count(keyword: Option<&Value>) -> Option<usize> {
    keyword.and_then(Value::as_f64).filter(|n| *n >= 0.0).map(|n| n as usize)
}

/// One step of a `$ref`'s JSON pointer, unescaped: the URI fragment's
/// `%25` and `%22`, then the pointer's `~1` and `~0` (RFC 6901), in one
/// pass from the left. By hand rather than `str::replace`, whose substring
/// searcher is some 2 KB of wasm that nothing else needs.
fn pointer_step(step: &str) -> Cow<'_, str> {
    if !crate::ascii::has_any(step, b"%~") {
        return Cow::Borrowed(step);
    }
    let mut out = String::with_capacity(step.len());
    let mut rest = step;
    while let Some(c) = rest.chars().next() {
        let (decoded, taken) = match rest.as_bytes() {
            [b'%', b'2', b'5', ..] => ('%', 3),
            [b'%', b'2', b'2', ..] => ('"', 3),
            [b'~', b'1', ..] => ('/', 2),
            [b'~', b'0', ..] => ('~', 2),
            _ => (c, c.len_utf8()),
        };
        out.push(decoded);
        rest = rest.get(taken..).unwrap_or_default();
    }
    Cow::Owned(out)
}

impl Validator<'_> {
    /// The schema a `$ref` to this document (`#` and a JSON pointer) names.
    fn resolve(&self, reference: &str) -> Option<&Value> {
        let pointer = reference.strip_prefix('#')?;
        if pointer.is_empty() {
            return Some(self.root);
        }
        let mut target = self.root;
        for step in pointer.strip_prefix('/')?.split('/') {
            let step = pointer_step(step);
            target = match target {
                Value::Object(members) => members.get(&*step)?,
                // An index as JSON pointers write it: digits, no leading 0.
                Value::Array(items) if step == "0" || !crate::ascii::starts_with_any(&step, b"0+") => {
                    items.get(usize::try_from(step.parse::<u64>().ok()?).ok()?)?
                }
                _ => return None,
            };
        }
        Some(target)
    }

    /// Checks a subschema at `path`, restoring `path` afterwards.
    fn at(
        &self,
        schema: &Value,
        value: &Value,
        path: &mut String,
        step: &str,
        depth: usize,
    ) -> Result<(), SchemaError> {
        let length = path.len();
        push_step(path, step);
        let outcome = self.check(schema, value, path, depth);
        path.truncate(length);
        outcome
    }

    fn check(&self, schema: &Value, value: &Value, path: &mut String, depth: usize) -> Result<(), SchemaError> {
        let schema = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => return fail(path, "no value is allowed here".into()),
            // Reading a schema object's keywords walks all of its members.
            Value::Object(schema) if self.step(1 + schema.len() as u64) => Keywords::of(schema),
            Value::Object(_) => return too_many_steps(path),
            // Not a schema: nothing to hold the value to.
            _ => return Ok(()),
        };
        if depth > MAX_DEPTH {
            return fail(path, "the schema's $refs nest too deep (a loop?)".into());
        }
        if let Some(Value::Array(names)) = schema.types
            && !self.step(names.len() as u64)
        {
            return too_many_steps(path);
        }
        if let Some(Value::String(reference)) = schema.reference
            && let Some(target) = self.resolve(reference)
        {
            self.check(target, value, path, depth + 1)?;
        }
        check_type(&schema, value, path)?;
        if let Some(listed @ Value::Array(options)) = schema.one_of_values
            && (!self.step(options.len() as u64) || !options.iter().any(|option| equal(option, value)))
        {
            return fail(path, format!("{} is not one of {}", quoted(value), quoted(listed)));
        }
        if let Some(constant) = schema.constant
            && !equal(constant, value)
        {
            return fail(path, format!("{} is not {}", quoted(value), quoted(constant)));
        }
        match value {
            Value::Object(object) => self.check_object(&schema, object, path, depth)?,
            Value::Array(items) => self.check_array(&schema, items, path, depth)?,
            Value::String(text) if schema.min_length.is_some() || schema.max_length.is_some() => {
                let length = text.chars().count();
                if let Some(min) = count(schema.min_length).filter(|min| length < *min) {
                    return fail(path, format!("the string is shorter than {min} characters"));
                }
                if let Some(max) = count(schema.max_length).filter(|max| length > *max) {
                    return fail(path, format!("the string is longer than {max} characters"));
                }
            }
            Value::Number(n) => check_number(&schema, n, path)?,
            _ => {}
        }
        self.check_combinators(&schema, value, path, depth)
    }

    fn check_object(
        &self,
        schema: &Keywords<'_>,
        object: &Map<String, Value>,
        path: &mut String,
        depth: usize,
    ) -> Result<(), SchemaError> {
        if let Some(Value::Array(required)) = schema.required {
            if !self.step(required.len() as u64) {
                return too_many_steps(path);
            }
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    return fail(path, format!("the required property {name} is missing", name = Quoted(name)));
                }
            }
        }
        if let Some(min) = count(schema.min_properties).filter(|min| object.len() < *min) {
            return fail(path, format!("fewer than {min} properties"));
        }
        if let Some(max) = count(schema.max_properties).filter(|max| object.len() > *max) {
            return fail(path, format!("more than {max} properties"));
        }
        if let Some(Value::Object(dependent)) = schema.dependent_required {
            for (name, needs) in dependent.iter().filter(|(name, _)| object.contains_key(*name)) {
                if !self.step(needs.as_array().map_or(1, Vec::len) as u64) {
                    return too_many_steps(path);
                }
                for needed in needs.as_array().map_or(&[][..], Vec::as_slice).iter().filter_map(Value::as_str) {
                    if !object.contains_key(needed) {
                        return fail(
                            path,
                            format!("{name} needs the property {needed}", name = Quoted(name), needed = Quoted(needed)),
                        );
                    }
                }
            }
        }
        let properties = schema.properties.and_then(Value::as_object);
        // With `patternProperties` (unsupported) nobody can say which
        // properties are additional: `additionalProperties` is not checked.
        let additional = schema.additional_properties.filter(|_| schema.pattern_properties.is_none());
        for (name, item) in object {
            match properties.and_then(|p| p.get(name)) {
                Some(subschema) => self.at(subschema, item, path, name, depth)?,
                None => {
                    if let Some(additional) = additional {
                        self.at(additional, item, path, name, depth)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn check_array(
        &self,
        schema: &Keywords<'_>,
        items: &[Value],
        path: &mut String,
        depth: usize,
    ) -> Result<(), SchemaError> {
        if let Some(min) = count(schema.min_items).filter(|min| items.len() < *min) {
            return fail(path, format!("fewer than {min} items"));
        }
        if let Some(max) = count(schema.max_items).filter(|max| items.len() > *max) {
            return fail(path, format!("more than {max} items"));
        }
        if schema.unique_items == Some(&Value::Bool(true)) {
            if !self.step(items.len() as u64) {
                return too_many_steps(path);
            }
            if let Some((j, i)) = equal_pair(items) {
                return fail(path, format!("items {j} and {i} are equal"));
            }
        }
        let prefix = schema.prefix_items.and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for (i, item) in items.iter().enumerate() {
            let subschema = match prefix.get(i) {
                Some(subschema) => Some(subschema),
                None => schema.items,
            };
            if let Some(subschema) = subschema {
                self.at(subschema, item, path, &i.to_string(), depth)?;
            }
        }
        Ok(())
    }

    fn check_combinators(
        &self,
        schema: &Keywords<'_>,
        value: &Value,
        path: &mut String,
        depth: usize,
    ) -> Result<(), SchemaError> {
        let passes = |subschema: &Value, path: &mut String| self.check(subschema, value, path, depth + 1).is_ok();
        if let Some(Value::Array(all)) = schema.all_of {
            for subschema in all {
                self.check(subschema, value, path, depth + 1)?;
            }
        }
        if let Some(Value::Array(any)) = schema.any_of
            && !any.iter().any(|subschema| passes(subschema, path))
        {
            return fail(path, "it matches none of anyOf".into());
        }
        if let Some(Value::Array(one)) = schema.one_of {
            let matched = one.iter().filter(|subschema| passes(subschema, path)).count();
            if matched != 1 {
                return fail(path, format!("it matches {matched} of oneOf, not exactly one"));
            }
        }
        if let Some(not) = schema.not
            && passes(not, path)
        {
            return fail(path, "it matches what `not` excludes".into());
        }
        if let Some(condition) = schema.condition {
            let branch = if passes(condition, path) { schema.then } else { schema.otherwise };
            if let Some(branch) = branch {
                self.check(branch, value, path, depth + 1)?;
            }
        }
        Ok(())
    }
}

fn check_type(schema: &Keywords<'_>, value: &Value, path: &str) -> Result<(), SchemaError> {
    let matches = match schema.types {
        Some(Value::String(name)) => has_type(value, name),
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).any(|name| has_type(value, name)),
        _ => true,
    };
    match schema.types {
        Some(types) if !matches => fail(path, format!("{} is not of type {}", type_name(value), quoted(types))),
        _ => Ok(()),
    }
}

/// A numeric keyword's value, to compare and to show.
fn bound(keyword: Option<&Value>) -> Option<(f64, &Number)> {
    match keyword {
        Some(Value::Number(bound)) => bound.as_f64().map(|b| (b, bound)),
        _ => None,
    }
}

/// The messages print each number as JSON writes it (`json::Shown`: serde_json's `Number`
/// formatting, with itoa and zmij), not with `{}` of an `f64`: that would
/// keep core's float formatting (some 11 KB of the shipped wasm) in the module.
fn check_number(schema: &Keywords<'_>, value: &Number, path: &str) -> Result<(), SchemaError> {
    let n = value.as_f64().unwrap_or(f64::NAN);
    if let Some((_, min)) = bound(schema.minimum).filter(|(min, _)| n < *min) {
        return fail(path, format!("{} is less than the minimum {}", Shown(value), Shown(min)));
    }
    if let Some((_, max)) = bound(schema.maximum).filter(|(max, _)| n > *max) {
        return fail(path, format!("{} is more than the maximum {}", Shown(value), Shown(max)));
    }
    if let Some((_, min)) = bound(schema.exclusive_minimum).filter(|(min, _)| n <= *min) {
        return fail(path, format!("{} is not more than {}", Shown(value), Shown(min)));
    }
    if let Some((_, max)) = bound(schema.exclusive_maximum).filter(|(max, _)| n >= *max) {
        return fail(path, format!("{} is not less than {}", Shown(value), Shown(max)));
    }
    if let Some((step, shown)) = bound(schema.multiple_of).filter(|(step, _)| *step > 0.0) {
        let quotient = n / step;
        // `round_ties_even` is wasm's `f64.nearest`, where `round` is a
        // library routine of its own; a tie is 0.5 away either way.
        if !quotient.is_finite() || (quotient - quotient.round_ties_even()).abs() > 1e-9 {
            return fail(path, format!("{} is not a multiple of {}", Shown(value), Shown(shown)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
