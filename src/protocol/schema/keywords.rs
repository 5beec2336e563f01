//! The keywords the validator reads, found in one pass over a schema.

use serde_json::{Map, Value};

/// The keywords of one schema object that this validator reads, found in
/// one pass over its members: a schema names a few of these thirty, and
/// looking each one up hashed every name for every value checked (a
/// `tools/call` result's check was most of its time in a Node profile).
#[derive(Default)]
pub(super) struct Keywords<'a> {
    pub(super) reference: Option<&'a Value>,
    pub(super) types: Option<&'a Value>,
    pub(super) one_of_values: Option<&'a Value>,
    pub(super) constant: Option<&'a Value>,
    pub(super) min_length: Option<&'a Value>,
    pub(super) max_length: Option<&'a Value>,
    pub(super) minimum: Option<&'a Value>,
    pub(super) maximum: Option<&'a Value>,
    pub(super) exclusive_minimum: Option<&'a Value>,
    pub(super) exclusive_maximum: Option<&'a Value>,
    pub(super) multiple_of: Option<&'a Value>,
    pub(super) required: Option<&'a Value>,
    pub(super) min_properties: Option<&'a Value>,
    pub(super) max_properties: Option<&'a Value>,
    pub(super) dependent_required: Option<&'a Value>,
    pub(super) properties: Option<&'a Value>,
    pub(super) additional_properties: Option<&'a Value>,
    pub(super) pattern_properties: Option<&'a Value>,
    pub(super) min_items: Option<&'a Value>,
    pub(super) max_items: Option<&'a Value>,
    pub(super) unique_items: Option<&'a Value>,
    pub(super) prefix_items: Option<&'a Value>,
    pub(super) items: Option<&'a Value>,
    pub(super) all_of: Option<&'a Value>,
    pub(super) any_of: Option<&'a Value>,
    pub(super) one_of: Option<&'a Value>,
    pub(super) not: Option<&'a Value>,
    pub(super) condition: Option<&'a Value>,
    pub(super) then: Option<&'a Value>,
    pub(super) otherwise: Option<&'a Value>,
}

impl<'a> Keywords<'a> {
    pub(super) fn of(schema: &'a Map<String, Value>) -> Keywords<'a> {
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
