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

use std::cell::Cell;
use std::fmt;

use serde_json::{Map, Value};

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

/// `value` as JSON, cut after about [`QUOTED`] bytes: a message quotes the
/// start of a large value, and writing the rest of it would be wasted work.
pub(crate) fn quoted(value: &Value) -> String {
    struct Bounded(String);
    impl fmt::Write for Bounded {
        fn write_str(&mut self, text: &str) -> fmt::Result {
            if self.0.len() + text.len() > QUOTED {
                let room = (0..=QUOTED.saturating_sub(self.0.len())).rev().find(|&i| text.is_char_boundary(i));
                self.0.push_str(&text[..room.unwrap_or(0)]);
                return Err(fmt::Error);
            }
            self.0.push_str(text);
            Ok(())
        }
    }
    let mut out = Bounded(String::new());
    if fmt::write(&mut out, format_args!("{value}")).is_err() {
        out.0.push_str("...");
    }
    out.0
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

/// JSON equality with numbers compared by value (1 and 1.0 are equal).
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// Two items of `items` that are equal as JSON Schema compares them, if
/// any: each item is written in a canonical form (numbers by value, object
/// members by name) and the forms are sorted, so that thousands of items
/// take a sort, not a comparison of every pair.
pub(crate) fn equal_pair(items: &[Value]) -> Option<(usize, usize)> {
    fn canonical(value: &Value, out: &mut String) {
        use fmt::Write;
        match value {
            // JSON has no NaN or infinity: every number reads as a finite f64;
            // -0 and 0 are equal (the fuzzer's first find), so one form.
            Value::Number(n) => {
                let n = n.as_f64().unwrap_or_default();
                let _ = write!(out, "{}", if n == 0.0 { 0.0 } else { n });
            }
            Value::Array(items) => {
                out.push('[');
                for item in items {
                    canonical(item, out);
                    out.push(',');
                }
                out.push(']');
            }
            Value::Object(members) => {
                // Sorted by their forms, which begin with the member's name.
                let mut forms = forms(members.iter().map(|(name, member)| (Some(name), member)));
                forms.sort_unstable();
                out.push('{');
                for (form, _) in forms {
                    out.push_str(&form);
                    out.push(',');
                }
                out.push('}');
            }
            // null, booleans and strings as JSON writes them.
            other => {
                let _ = write!(out, "{other}");
            }
        }
    }
    /// Each value's form (after its name's, for an object's member) and
    /// its index.
    fn forms<'a>(values: impl Iterator<Item = (Option<&'a String>, &'a Value)>) -> Vec<(String, usize)> {
        values
            .enumerate()
            .map(|(i, (name, value))| {
                let mut form = String::new();
                if let Some(name) = name {
                    use fmt::Write;
                    let _ = write!(form, "{}:", Value::String(name.clone()));
                }
                canonical(value, &mut form);
                (form, i)
            })
            .collect()
    }
    let mut forms = forms(items.iter().map(|item| (None, item)));
    forms.sort_unstable();
    forms.windows(2).find(|pair| pair[0].0 == pair[1].0).map(|pair| (pair[0].1, pair[1].1))
}

/// `step` added to a JSON pointer, escaped (RFC 6901) only where it has to
/// be: most property names have no `~` or `/`, and need no copy.
fn push_step(path: &mut String, step: &str) {
    path.push('/');
    if step.contains(['~', '/']) {
        path.push_str(&step.replace('~', "~0").replace('/', "~1"));
    } else {
        path.push_str(step);
    }
}

fn number(keyword: Option<&Value>) -> Option<f64> {
    keyword.and_then(Value::as_f64)
}

fn count(keyword: Option<&Value>) -> Option<usize> {
    keyword.and_then(Value::as_f64).filter(|n| *n >= 0.0).map(|n| n as usize)
}

/// The keywords of one schema object that this validator reads, found in
/// one pass over its members: a schema names a few of these thirty, and
/// looking each one up hashed every name for every value checked (a
/// `tools/call` result's check was most of its time in a Node profile).
#[derive(Default)]
struct Keywords<'a> {
    reference: Option<&'a Value>,
    types: Option<&'a Value>,
    one_of_values: Option<&'a Value>,
    constant: Option<&'a Value>,
    min_length: Option<&'a Value>,
    max_length: Option<&'a Value>,
    minimum: Option<&'a Value>,
    maximum: Option<&'a Value>,
    exclusive_minimum: Option<&'a Value>,
    exclusive_maximum: Option<&'a Value>,
    multiple_of: Option<&'a Value>,
    required: Option<&'a Value>,
    min_properties: Option<&'a Value>,
    max_properties: Option<&'a Value>,
    dependent_required: Option<&'a Value>,
    properties: Option<&'a Value>,
    additional_properties: Option<&'a Value>,
    pattern_properties: Option<&'a Value>,
    min_items: Option<&'a Value>,
    max_items: Option<&'a Value>,
    unique_items: Option<&'a Value>,
    prefix_items: Option<&'a Value>,
    items: Option<&'a Value>,
    all_of: Option<&'a Value>,
    any_of: Option<&'a Value>,
    one_of: Option<&'a Value>,
    not: Option<&'a Value>,
    condition: Option<&'a Value>,
    then: Option<&'a Value>,
    otherwise: Option<&'a Value>,
}

impl<'a> Keywords<'a> {
    fn of(schema: &'a Map<String, Value>) -> Keywords<'a> {
        let mut keywords = Keywords::default();
        for (name, value) in schema {
            let slot = match name.as_str() {
                "$ref" => &mut keywords.reference,
                "type" => &mut keywords.types,
                "enum" => &mut keywords.one_of_values,
                "const" => &mut keywords.constant,
                "minLength" => &mut keywords.min_length,
                "maxLength" => &mut keywords.max_length,
                "minimum" => &mut keywords.minimum,
                "maximum" => &mut keywords.maximum,
                "exclusiveMinimum" => &mut keywords.exclusive_minimum,
                "exclusiveMaximum" => &mut keywords.exclusive_maximum,
                "multipleOf" => &mut keywords.multiple_of,
                "required" => &mut keywords.required,
                "minProperties" => &mut keywords.min_properties,
                "maxProperties" => &mut keywords.max_properties,
                "dependentRequired" => &mut keywords.dependent_required,
                "properties" => &mut keywords.properties,
                "additionalProperties" => &mut keywords.additional_properties,
                "patternProperties" => &mut keywords.pattern_properties,
                "minItems" => &mut keywords.min_items,
                "maxItems" => &mut keywords.max_items,
                "uniqueItems" => &mut keywords.unique_items,
                "prefixItems" => &mut keywords.prefix_items,
                "items" => &mut keywords.items,
                "allOf" => &mut keywords.all_of,
                "anyOf" => &mut keywords.any_of,
                "oneOf" => &mut keywords.one_of,
                "not" => &mut keywords.not,
                "if" => &mut keywords.condition,
                "then" => &mut keywords.then,
                "else" => &mut keywords.otherwise,
                _ => continue,
            };
            *slot = Some(value);
        }
        keywords
    }
}

impl Validator<'_> {
    fn resolve(&self, reference: &str) -> Option<&Value> {
        let pointer = reference.strip_prefix('#')?;
        if !pointer.contains('%') {
            return self.root.pointer(pointer);
        }
        self.root.pointer(&pointer.replace("%25", "%").replace("%22", "\""))
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
            Value::Number(n) => check_number(&schema, n.as_f64().unwrap_or(f64::NAN), path)?,
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
                    return fail(path, format!("the required property {name:?} is missing"));
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
                for needed in needs.as_array().into_iter().flatten().filter_map(Value::as_str) {
                    if !object.contains_key(needed) {
                        return fail(path, format!("{name:?} needs the property {needed:?}"));
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

fn check_number(schema: &Keywords<'_>, n: f64, path: &str) -> Result<(), SchemaError> {
    if let Some(min) = number(schema.minimum).filter(|min| n < *min) {
        return fail(path, format!("{n} is less than the minimum {min}"));
    }
    if let Some(max) = number(schema.maximum).filter(|max| n > *max) {
        return fail(path, format!("{n} is more than the maximum {max}"));
    }
    if let Some(min) = number(schema.exclusive_minimum).filter(|min| n <= *min) {
        return fail(path, format!("{n} is not more than {min}"));
    }
    if let Some(max) = number(schema.exclusive_maximum).filter(|max| n >= *max) {
        return fail(path, format!("{n} is not less than {max}"));
    }
    if let Some(step) = number(schema.multiple_of).filter(|step| *step > 0.0) {
        let quotient = n / step;
        if !quotient.is_finite() || (quotient - quotient.round()).abs() > 1e-9 {
            return fail(path, format!("{n} is not a multiple of {step}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_failing_path_is_named() {
        let schema = json!({
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"type": "object", "required": ["id"],
                "properties": {"id": {"type": "integer", "minimum": 1}}}}},
            "required": ["items"]
        });
        assert_eq!(validate(&schema, &json!({"items": [{"id": 1}, {"id": 2}]})), Ok(()));
        let error = validate(&schema, &json!({"items": [{"id": 1}, {"id": 0}]})).unwrap_err();
        assert_eq!(error.path, "/items/1/id");
        let error = validate(&schema, &json!({"items": [{}]})).unwrap_err();
        assert_eq!((error.path.as_str(), error.message.contains("\"id\"")), ("/items/0", true));
        let error = validate(&schema, &json!([])).unwrap_err();
        assert_eq!(error.to_string(), "/: array is not of type \"object\"");
    }

    /// A schema whose `anyOf`s of `$ref`s double the work at every level
    /// (2^32 checks within the `$ref` depth) ends with an error after its
    /// steps, not after hours; so does one whose `not` hides the blow-up.
    #[test]
    fn a_schema_that_would_take_exponential_work_is_refused_after_its_steps() {
        let mut defs = serde_json::Map::new();
        for level in 0..40 {
            let next = json!({"$ref": format!("#/$defs/d{}", level + 1)});
            defs.insert(format!("d{level}"), json!({"anyOf": [next.clone(), next]}));
        }
        defs.insert("d40".into(), json!(false));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        let error = validate(&schema, &json!(1)).unwrap_err();
        assert_eq!(error.to_string(), format!("/: checking it takes more than {MAX_STEPS} steps, too many to finish"));
        let hidden = json!({"$defs": schema["$defs"], "not": {"$ref": "#/$defs/d0"}});
        assert!(validate(&hidden, &json!(1)).unwrap_err().message.contains("steps"));
        // The same shape a few levels deep is checked as usual.
        let shallow = json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}, {"$ref": "#/$defs/b"}]},
            "b": {"anyOf": [false, {"type": "integer"}]}}, "$ref": "#/$defs/a"});
        assert_eq!(validate(&shallow, &json!(1)), Ok(()));
        assert!(validate(&shallow, &json!("x")).unwrap_err().message.contains("anyOf"));
    }

    /// `uniqueItems` over 100,000 items is a sort, not 5 billion comparisons;
    /// it finds the equal pair wherever it is, numbers equal by value and
    /// objects whatever their members' order.
    #[test]
    fn unique_items_over_many_items_are_sorted_not_compared_pairwise() {
        let schema = json!({"type": "array", "uniqueItems": true});
        let mut items: Vec<Value> = (0..100_000).map(|i| json!(i)).collect();
        assert_eq!(validate(&schema, &Value::Array(items.clone())), Ok(()));
        items.push(json!(77_777.0));
        assert_eq!(validate(&schema, &Value::Array(items)).unwrap_err().message, "items 77777 and 100000 are equal");
        let objects = json!([{"a": 1, "b": [1, {"c": null}]}, {"a": true}, {"b": [1.0, {"c": null}], "a": 1}]);
        assert_eq!(validate(&schema, &objects).unwrap_err().message, "items 0 and 2 are equal");
        assert_eq!(validate(&schema, &json!([1, true, "1", [1], {"1": 1}, null, 0, false])), Ok(()));
        assert_eq!(validate(&schema, &json!([1, -0.0, 2, 0])).unwrap_err().message, "items 1 and 3 are equal");
    }

    /// A message quotes the start of a large value or schema, not all of it.
    #[test]
    fn messages_quote_large_values_in_part() {
        let long = "x".repeat(1 << 20);
        let error = validate(&json!({"const": long.clone()}), &json!(long.clone() + "y")).unwrap_err();
        assert!(error.message.len() < 2 * QUOTED + 40, "{} bytes", error.message.len());
        assert!(error.message.starts_with("\"xxx") && error.message.contains("... is not \"xxx"), "{}", error.message);
        let error = validate(&json!({"enum": [1, 2]}), &json!(3)).unwrap_err();
        assert_eq!(error.message, "3 is not one of [1,2]");
        // Cut at a character's boundary.
        assert!(quoted(&json!("é".repeat(200))).ends_with("é..."));
    }

    /// Keywords this validator does not implement: a suite case whose
    /// schema uses one is skipped (and counted), since ignoring the keyword
    /// is this validator's documented behaviour, not a failure.
    #[cfg(not(target_arch = "wasm32"))]
    const UNSUPPORTED: &[&str] = &[
        "pattern",
        "patternProperties",
        "propertyNames",
        "format",
        "contains",
        "minContains",
        "maxContains",
        "unevaluatedItems",
        "unevaluatedProperties",
        "dependentSchemas",
        "$dynamicRef",
        "$dynamicAnchor",
        "$anchor",
        "$id",
        "$recursiveRef",
    ];

    #[cfg(not(target_arch = "wasm32"))]
    fn uses_unsupported(schema: &Value) -> bool {
        match schema {
            Value::Object(map) => map.iter().any(|(key, value)| {
                UNSUPPORTED.contains(&key.as_str())
                    || (key == "$ref" && !value.as_str().is_some_and(|r| r.starts_with('#')))
                    || uses_unsupported(value)
            }),
            Value::Array(items) => items.iter().any(uses_unsupported),
            _ => false,
        }
    }

    /// The JSON Schema Test Suite's 2020-12 cases for the supported keywords
    /// (tests/jsonschema/): every test of every case that uses only
    /// supported keywords gives the suite's verdict.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_json_schema_test_suite_passes_for_the_supported_keywords() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jsonschema");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("tests/jsonschema")
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        assert!(files.len() >= 25, "{files:?}");
        let (mut passed, mut skipped, mut failures) = (0, 0, Vec::new());
        for file in files {
            let cases: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("readable")).expect("JSON");
            for case in cases.as_array().expect("an array of cases") {
                let schema = &case["schema"];
                let tests = case["tests"].as_array().expect("tests");
                if uses_unsupported(schema) {
                    skipped += tests.len();
                    continue;
                }
                for test in tests {
                    let valid = validate(schema, &test["data"]).is_ok();
                    if valid == test["valid"].as_bool().expect("valid") {
                        passed += 1;
                    } else {
                        let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
                        failures.push(format!("{name}: {} / {}", case["description"], test["description"]));
                    }
                }
            }
        }
        println!("JSON Schema Test Suite: {passed} passed, {skipped} skipped (unsupported keywords)");
        assert!(failures.is_empty(), "{} failed:\n{}", failures.len(), failures.join("\n"));
        assert!(passed > 400, "only {passed} tests ran");
    }
}
