//! What a section's type says about its settings, read from the type itself: the names serde
//! knows it by and whether each holds a whole number. This is how the environment variables
//! and flags are derived from the structure instead of a hand-kept table.
//!
//! It asks serde for the struct's field names (serde hands them to `deserialize_struct`), then
//! once per field, offering that field alone and noting which kind of value its deserializer
//! asks for.

use std::fmt;

use serde::de::value::StrDeserializer;
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, MapAccess, Visitor};

/// One setting of a section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Field {
    /// The setting's name, as in the TOML file (`rate_limit_per_minute`).
    pub name: &'static str,
    /// Whether it holds a whole number: text from the environment or a flag is then read as
    /// one.
    pub whole_number: bool,
}

/// The settings of the section type `T` (a struct deserialized from a table), in declaration
/// order.
pub(crate) fn fields_of<T: DeserializeOwned>() -> Vec<Field> {
    let mut names = Probe::default();
    // The probe always stops serde with an error once it has what it asked for.
    let _ = T::deserialize(&mut names);
    let names = names
        .names
        .expect("a settings section is a struct with named fields");
    names
        .iter()
        .map(|&name| {
            let mut kind = Probe {
                offer: Some(name),
                ..Probe::default()
            };
            let _ = T::deserialize(&mut kind);
            Field {
                name,
                whole_number: kind.whole == Some(true),
            }
        })
        .collect()
}

/// The error that ends every probe.
#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("probe finished")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}

/// Stands in for a settings table: keeps the field names serde passes to
/// `deserialize_struct`, and when asked to `offer` one field, offers it alone and notes
/// whether its value is asked for as a whole number.
#[derive(Default)]
struct Probe {
    offer: Option<&'static str>,
    names: Option<&'static [&'static str]>,
    whole: Option<bool>,
}

impl<'de> Deserializer<'de> for &mut Probe {
    type Error = Stop;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Stop> {
        self.names = Some(fields);
        match self.offer {
            Some(name) => visitor.visit_map(OneField {
                name,
                whole: &mut self.whole,
                offered: false,
            }),
            None => Err(Stop),
        }
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// A map of one entry: the offered field's name and a [`ValueKind`] as its value.
struct OneField<'a> {
    name: &'static str,
    whole: &'a mut Option<bool>,
    offered: bool,
}

impl<'de> MapAccess<'de> for OneField<'_> {
    type Error = Stop;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Stop> {
        if self.offered {
            return Ok(None);
        }
        self.offered = true;
        let key: StrDeserializer<'_, Stop> = self.name.into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stop> {
        seed.deserialize(ValueKind(self.whole))
    }
}

/// Notes whether a value is asked for as a whole number, looking through `Option` and
/// newtypes.
struct ValueKind<'a>(&'a mut Option<bool>);

impl ValueKind<'_> {
    fn note<T>(self, whole: bool) -> Result<T, Stop> {
        *self.0 = Some(whole);
        Err(Stop)
    }
}

macro_rules! whole_numbers {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Stop> {
                self.note(true)
            }
        )*
    };
}

impl<'de> Deserializer<'de> for ValueKind<'_> {
    type Error = Stop;

    whole_numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Stop> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Stop> {
        self.note(false)
    }

    serde::forward_to_deserialize_any! {
        bool f32 f64 char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Example {
        listen: String,
        #[serde(default)]
        limit: u32,
        #[serde(default)]
        maybe: Option<u64>,
        #[serde(rename = "kind")]
        what: Option<String>,
        #[serde(default)]
        list: Vec<String>,
    }

    #[test]
    fn names_and_whole_numbers_come_from_the_type() {
        let found = fields_of::<Example>();
        let seen: Vec<(&str, bool)> = found.iter().map(|f| (f.name, f.whole_number)).collect();
        assert_eq!(
            seen,
            [
                ("listen", false),
                ("limit", true),
                ("maybe", true),
                ("kind", false),
                ("list", false)
            ]
        );
    }
}
