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

/// Numbers in the messages read as JSON wrote them: integers without a
/// decimal point, fractions in their shortest form.
#[test]
fn numbers_in_messages_read_as_json_wrote_them() {
    let message = |schema: Value, value: Value| validate(&schema, &value).unwrap_err().message;
    assert_eq!(message(json!({"minimum": 1}), json!(0)), "0 is less than the minimum 1");
    assert_eq!(message(json!({"maximum": 2}), json!(2.5)), "2.5 is more than the maximum 2");
    assert_eq!(message(json!({"exclusiveMinimum": 0.1}), json!(0.1)), "0.1 is not more than 0.1");
    assert_eq!(message(json!({"exclusiveMaximum": -3}), json!(-3)), "-3 is not less than -3");
    assert_eq!(message(json!({"multipleOf": 0.25}), json!(1.3)), "1.3 is not a multiple of 0.25");
    assert_eq!(validate(&json!({"minimum": 1.5, "multipleOf": 0.5}), &json!(2)), Ok(()));
}

/// A `$ref` resolves as serde_json's `Value::pointer` resolves the pointer
/// (after the fragment's `%25` and `%22`), escapes and array indexes too.
#[test]
fn a_reference_resolves_as_a_json_pointer_does() {
    let root = json!({"a/b": {"c~d": [10, 11, {"e%f": 1, "g\"h": 2}]}, "": {"x": 3}, "0": 4, "list": [5, 6]});
    let validator = Validator { root: &root, steps: Cell::new(0) };
    for (reference, pointer) in [
        ("#", Some("")),
        ("#/a~1b/c~0d/1", Some("/a~1b/c~0d/1")),
        ("#/a~1b/c~0d/2/e%25f", Some("/a~1b/c~0d/2/e%f")),
        ("#/a~1b/c~0d/2/g%22h", Some("/a~1b/c~0d/2/g\"h")),
        ("#//x", Some("//x")),
        ("#/0", Some("/0")),
        ("#/list/0", Some("/list/0")),
        ("#/list/01", Some("/list/01")),
        ("#/list/+1", Some("/list/+1")),
        ("#/list/2", Some("/list/2")),
        ("#/missing", Some("/missing")),
        ("#a", None),
        ("other.json#/a", None),
    ] {
        let expected = pointer.and_then(|pointer| root.pointer(pointer));
        assert_eq!(validator.resolve(reference), expected, "{reference}");
    }
}
