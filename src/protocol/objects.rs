//! serde_json's text reader, with every struct read from a JSON object only.
//!
//! serde's derived `Deserialize` for a struct has two readers: one for a map
//! and one for a sequence, because serde_json accepts a struct written as
//! the array of its fields in order (`["2025-11-25", {...}]` for an
//! `InitializeResult`). No MCP or OAuth document is written that way, yet
//! every struct the client reads carried the second reader into the wasm
//! module: 6.8 KB of the full package's gzip (docs/size.md). [`from_str`]
//! wraps each layer of serde_json's reader and hands it on unchanged, except
//! that a struct is asked for as a map. The sequence readers of structs are
//! then never instantiated, and an array where a struct belongs is refused
//! ("invalid type: sequence, expected struct ...").
//!
//! Every typed reading of JSON text (the derived readers of the Rust API)
//! goes through here: a type read both with and without the wrapper would
//! be compiled twice. A `Value`, and the types read field by field, are
//! read by the crate's own reader (`protocol::json`), which is all the
//! wasm module has.

use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// A `T` read from JSON text (whitespace around it allowed, nothing else).
pub(crate) fn from_str<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Objects(&mut reader))?;
    at_end(&mut reader)?;
    Ok(value)
}

/// Only whitespace after the value. Not inlined: `from_str` is compiled
/// once per type read, and this part is the same for all of them.
#[inline(never)]
fn at_end(reader: &mut serde_json::Deserializer<serde_json::de::StrRead<'_>>) -> serde_json::Result<()> {
    reader.end()
}

/// The index in `names` of the string `deserializer` holds: how a unit enum
/// written as its variant's name is read ([`read_by_name!`]). serde's derived
/// enum reader goes through the deserializer's enum access, a field visitor
/// and a variant access, about 2 KB of wasm per enum; this is one string
/// read, compiled once per deserializer.
pub(crate) fn name_index<'de, D: Deserializer<'de>>(
    deserializer: D,
    names: &'static [&'static str],
) -> Result<usize, D::Error> {
    let name = <String as serde::Deserialize>::deserialize(deserializer)?;
    names.iter().position(|known| *known == name).ok_or_else(|| de::Error::unknown_variant(&name, names))
}

/// `Deserialize` for a unit enum from its variants' names, which must be
/// the names its derived `Serialize` writes (a test of each type checks
/// both ways).
macro_rules! read_by_name {
    ($ty:ident { $($variant:ident = $name:literal),+ $(,)? }) => {
        impl $ty {
            /// The variant of this name: how one is read from a `Value`
            /// already parsed, with no reader of text for the type.
            #[allow(dead_code)]
            pub(crate) fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($name => Some($ty::$variant),)+
                    _ => None,
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                const VARIANTS: &[$ty] = &[$($ty::$variant),+];
                let index = $crate::protocol::objects::name_index(deserializer, &[$($name),+])?;
                Ok(VARIANTS[index])
            }
        }
    };
}
pub(crate) use read_by_name;

/// A deserializer whose structs are maps.
struct Objects<D>(D);
/// A visitor handed on, with what it is given wrapped.
struct Visit<V>(V);
/// A seed handed on, with the deserializer it is given wrapped.
struct Seed<S>(S);
/// A sequence, map, enum or variant access handed on, with what it
/// reads through wrapped.
struct Access<A>(A);

macro_rules! forward_deserialize {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(Visit(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Objects<D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_str deserialize_string deserialize_bytes
        deserialize_byte_buf deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // The point of the module: never `visit_seq` for a struct.
        self.0.deserialize_map(Visit(visitor))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, Visit(visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, Visit(visitor))
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Visit(visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, Visit(visitor))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, Visit(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident($ty:ty))*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.0.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Visit<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    forward_visit! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64) visit_i128(i128)
        visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64) visit_u128(u128) visit_f32(f32) visit_f64(f64)
        visit_char(char) visit_str(&str) visit_borrowed_str(&'de str) visit_string(String)
        visit_bytes(&[u8]) visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(Objects(deserializer))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.0.visit_newtype_struct(Objects(deserializer))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(Access(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Access(map))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(Access(data))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Objects(deserializer))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Access<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Access<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Seed(seed))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Access<A> {
    type Error = A::Error;
    type Variant = Access<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant), A::Error> {
        let (value, variant) = self.0.variant_seed(Seed(seed))?;
        Ok((value, Access(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Access<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Seed(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Visit(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Visit(visitor))
    }
}

#[cfg(test)]
mod tests {
    use super::from_str;
    use serde::Deserialize;
    use serde_json::{Value, json};

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Outer {
        protocol_version: String,
        inner: Option<Inner>,
        #[serde(default)]
        list: Vec<Inner>,
        kind: Option<Kind>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        n: u64,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Plain,
        Counted(u64),
        Shaped { n: u64 },
    }

    #[test]
    fn reads_structs_from_objects_at_every_depth() {
        let text = r#" {"protocolVersion": "2025-11-25", "inner": {"n": 1}, "list": [{"n": 2}], "kind": "plain"} "#;
        let read: Outer = from_str(text).expect("reads");
        assert_eq!(
            read,
            Outer {
                protocol_version: "2025-11-25".into(),
                inner: Some(Inner { n: 1 }),
                list: vec![Inner { n: 2 }],
                kind: Some(Kind::Plain),
            }
        );
        let counted: Outer = from_str(r#"{"protocolVersion": "x", "kind": {"counted": 3}}"#).expect("reads");
        assert_eq!(counted.kind, Some(Kind::Counted(3)));
        let shaped: Outer = from_str(r#"{"protocolVersion": "x", "kind": {"shaped": {"n": 4}}}"#).expect("reads");
        assert_eq!(shaped.kind, Some(Kind::Shaped { n: 4 }));
    }

    /// Each enum read by name reads back what its `Serialize` writes, and
    /// refuses a name it does not know or a value that is no string.
    #[test]
    fn enums_read_by_name_read_what_they_write() {
        use crate::client::SnapshotEra;
        use crate::protocol::stateless::cache::CacheScope;
        use crate::protocol::types::{ElicitAction, LoggingLevel};
        use serde::{Serialize, de::DeserializeOwned};

        fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(all: &[T]) {
            for variant in all {
                let text = serde_json::to_string(variant).expect("writes");
                assert_eq!(&from_str::<T>(&text).expect("reads"), variant, "{text}");
            }
            let unknown = from_str::<T>(r#""nonesuch""#).expect_err("no such variant");
            assert!(unknown.to_string().starts_with("unknown variant `nonesuch`, expected "), "{unknown}");
            assert!(from_str::<T>("3").is_err() && from_str::<T>("null").is_err());
        }
        use LoggingLevel::*;
        round_trip(&[Debug, Info, Notice, Warning, Error, Critical, Alert, Emergency]);
        round_trip(&[ElicitAction::Accept, ElicitAction::Decline, ElicitAction::Cancel]);
        round_trip(&[CacheScope::Public, CacheScope::Private]);
        round_trip(&[SnapshotEra::Handshake, SnapshotEra::Stateless]);
        assert_eq!(serde_json::to_string(&Emergency).expect("writes"), r#""emergency""#);
        // `from_name`, for a name already read: the same names.
        for level in [Debug, Info, Notice, Warning, Error, Critical, Alert, Emergency] {
            assert_eq!(LoggingLevel::from_name(level.as_str()), Some(level));
        }
        assert_eq!(CacheScope::from_name("public"), Some(CacheScope::Public));
        assert_eq!(CacheScope::from_name("private"), Some(CacheScope::Private));
        assert_eq!(LoggingLevel::from_name("nonesuch"), None);
        assert_eq!(CacheScope::from_name("Public"), None);
    }

    #[test]
    fn refuses_a_struct_written_as_an_array() {
        // serde_json alone accepts both; the wrapper only the object.
        assert!(serde_json::from_str::<Inner>("[1]").is_ok());
        let error = from_str::<Inner>("[1]").expect_err("an array is not a struct here");
        assert!(error.to_string().contains("invalid type: sequence, expected struct Inner"), "{error}");
        let nested = from_str::<Outer>(r#"{"protocolVersion": "x", "inner": [1]}"#).expect_err("nested too");
        assert!(nested.to_string().contains("expected struct Inner"), "{nested}");
    }

    #[test]
    fn reads_values_and_refuses_what_serde_json_refuses() {
        let text = r#"{"b": [1, -2, 3.5, "s\u00e9", null, true], "a": {}}"#;
        assert_eq!(from_str::<Value>(text).expect("reads"), serde_json::from_str::<Value>(text).expect("reads"));
        assert_eq!(from_str::<Value>(text).expect("reads"), json!({"b": [1, -2, 3.5, "sé", null, true], "a": {}}));
        for bad in ["", "{", "{} {}", "[1,]", "\"\\x\""] {
            assert!(from_str::<Value>(bad).is_err(), "{bad:?} read");
        }
    }
}
