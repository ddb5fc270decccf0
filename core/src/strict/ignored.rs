//! The field a typed read ignored, found by writing the typed value out
//! against the value it was read from: [`super::ignored_field`]'s answer for
//! the typed value written back as JSON, without building that JSON.
//!
//! A typed value writes itself through serde as a JSON value would be
//! built from it (an object's members, an array's items, a variant as
//! `{"variant":…}`, an internally tagged enum's tag as a member). Here each
//! member it writes is looked up in the input object at the same place, and
//! each item taken beside the input's item; at the end of an object, the
//! first of the input's keys (in its order) that was not written, or under
//! which a written member found one, is the answer — as
//! [`super::ignored_field`] walks the input against the value written back.
//! A map whose key is not a string, or anything else this writer does not
//! know to write as serde_json would, is refused: the caller then builds the
//! JSON after all.
//!
//! (`serde_ignored` cannot serve here: an internally tagged enum, which
//! every ruleset's decision is, reads its members through a buffer that
//! `serde_ignored` does not see, so it reports none of them; and it reports
//! only keys no field took, not a key taken but not written back — an
//! `Option` given as `null`, a default written nowhere, an alias.)

use serde::ser::{self, Serialize};
use serde_json::{Map, Value};

pub(super) use crate::canon::typed::Refused;

/// The first field of `input` that `typed` does not write back, as
/// [`super::ignored_field`] names it; `Err` when this writer cannot tell.
pub(super) fn first<T: Serialize + ?Sized>(input: &Value, typed: &T) -> Result<Option<String>, Refused> {
    Ok(typed.serialize(Against { given: input })?.map(|found| found.to_string()))
}

/// Where an ignored field is, from the place being written down to it:
/// the innermost step last pushed, so each enclosing object or array adds
/// its own step at the end as the answer goes up.
#[derive(Debug)]
struct Found(Vec<Part>);

#[derive(Debug)]
enum Part {
    Key(String),
    Index(usize),
}

impl Found {
    fn key(key: &str) -> Found {
        Found(vec![Part::Key(key.to_string())])
    }

    fn under_key(mut self, key: &str) -> Found {
        self.0.push(Part::Key(key.to_string()));
        self
    }

    fn under_index(mut self, index: usize) -> Found {
        self.0.push(Part::Index(index));
        self
    }
}

impl std::fmt::Display for Found {
    /// As [`super::ignored_field`] names a field: `orders[1].by`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (depth, part) in self.0.iter().rev().enumerate() {
            match part {
                Part::Key(key) if depth == 0 => write!(f, "{key}")?,
                Part::Key(key) => write!(f, ".{key}")?,
                Part::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// The input where nothing is given: nothing written there can be compared.
static NOTHING: Value = Value::Null;

/// A typed value written at the place where the input holds `given`.
struct Against<'a> {
    given: &'a Value,
}

/// Which of an object's input keys a member was written for, by position in
/// the input's order: a bit each, or for a large object a flag each (its
/// keys listed to find a position without a scan).
enum Written<'a> {
    Few(u64),
    Many { keys: Vec<&'a str>, written: Vec<bool> },
}

impl<'a> Written<'a> {
    fn new(given: Option<&'a Map<String, Value>>) -> Self {
        match given {
            Some(map) if map.len() > 64 => {
                // A map's keys come in order (serde_json keeps them sorted).
                Written::Many { keys: map.keys().map(String::as_str).collect(), written: vec![false; map.len()] }
            }
            _ => Written::Few(0),
        }
    }

    /// The position of `key` in `given`, and the value it holds there.
    fn find(&self, given: &'a Map<String, Value>, key: &str) -> Option<(usize, &'a Value)> {
        match self {
            Written::Few(_) => given.iter().enumerate().find(|(_, (k, _))| *k == key).map(|(i, (_, v))| (i, v)),
            Written::Many { keys, .. } => keys.binary_search(&key).ok().and_then(|i| Some((i, given.get(key)?))),
        }
    }

    fn mark(&mut self, position: usize) {
        match self {
            Written::Few(bits) => *bits |= 1 << position,
            Written::Many { written, .. } => written[position] = true,
        }
    }

    fn has(&self, position: usize) -> bool {
        match self {
            Written::Few(bits) => bits & (1 << position) != 0,
            Written::Many { written, .. } => written[position],
        }
    }
}

/// The first of `given`'s keys, in its order, that was not written, or
/// under which a written member found an ignored field.
fn first_of(
    given: &Map<String, Value>,
    written: impl Fn(usize) -> bool,
    mut beneath: Vec<(usize, Found)>,
) -> Option<Found> {
    given.keys().enumerate().find_map(|(i, key)| {
        if !written(i) {
            return Some(Found::key(key));
        }
        let at = beneath.iter().position(|(p, _)| *p == i)?;
        Some(beneath.swap_remove(at).1.under_key(key))
    })
}

/// A variant written as `{"variant": inner}` where the input holds `around`:
/// its own key is the only one written, with `inner` found beneath it.
fn wrapped(around: &Value, variant: &str, mut inner: Option<Found>) -> Option<Found> {
    let given = around.as_object()?;
    // The variant's key is in the input once at most: `inner` is taken once.
    given.keys().find_map(|key| match key == variant {
        false => Some(Found::key(key)),
        true => inner.take().map(|found| found.under_key(key)),
    })
}

/// An object being written against the input object `given` (`None` when
/// the input holds no object there, so nothing in it can be ignored).
struct Members<'a> {
    given: Option<&'a Map<String, Value>>,
    written: Written<'a>,
    /// Ignored fields found beneath written members, by input position.
    beneath: Vec<(usize, Found)>,
    /// A map entry's key, between `serialize_key` and `serialize_value`.
    key: Option<String>,
    /// A struct variant's name and the input around it.
    variant: Option<(&'a Value, &'static str)>,
}

impl<'a> Members<'a> {
    fn open(given: &'a Value, variant: Option<(&'a Value, &'static str)>) -> Self {
        let given = given.as_object();
        Members { given, written: Written::new(given), beneath: Vec::new(), key: None, variant }
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Refused> {
        let Some(given) = self.given else { return Ok(()) };
        let Some((position, input)) = self.written.find(given, key) else { return Ok(()) };
        self.written.mark(position);
        // Written again, the last member written is the one a JSON object keeps.
        self.beneath.retain(|(p, _)| *p != position);
        if let Some(found) = value.serialize(Against { given: input })? {
            self.beneath.push((position, found));
        }
        Ok(())
    }

    fn close(self) -> Result<Option<Found>, Refused> {
        let inner = match self.given {
            Some(given) => first_of(given, |i| self.written.has(i), self.beneath),
            None => None,
        };
        Ok(match self.variant {
            Some((around, variant)) => wrapped(around, variant, inner),
            None => inner,
        })
    }
}

/// An array being written against the input array `given`: compared item
/// by item when both have as many items.
struct Items<'a> {
    given: Option<&'a Vec<Value>>,
    count: usize,
    found: Option<Found>,
    variant: Option<(&'a Value, &'static str)>,
}

impl<'a> Items<'a> {
    fn open(given: &'a Value, variant: Option<(&'a Value, &'static str)>) -> Self {
        Items { given: given.as_array(), count: 0, found: None, variant }
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        let index = self.count;
        self.count += 1;
        // Past the input's items the arrays differ in length, and nothing
        // beneath them counts; after the first found, nothing later does.
        if let (Some(input), None) = (self.given.and_then(|given| given.get(index)), &self.found) {
            self.found = value.serialize(Against { given: input })?.map(|found| found.under_index(index));
        }
        Ok(())
    }

    fn close(self) -> Result<Option<Found>, Refused> {
        let inner = match self.given {
            Some(given) if given.len() == self.count => self.found,
            _ => None,
        };
        Ok(match self.variant {
            Some((around, variant)) => wrapped(around, variant, inner),
            None => inner,
        })
    }
}

/// A map key as serde_json writes it: a string, or nothing this writer takes.
fn key_text<T: Serialize + ?Sized>(key: &T) -> Result<String, Refused> {
    match serde_json::to_value(key) {
        Ok(Value::String(text)) => Ok(text),
        _ => Err(Refused),
    }
}

/// The input a variant's inner value is written against: the member of
/// `around` named after the variant.
fn inside<'a>(around: &'a Value, variant: &str) -> &'a Value {
    around.get(variant).unwrap_or(&NOTHING)
}

impl<'a> ser::Serializer for Against<'a> {
    type Ok = Option<Found>;
    type Error = Refused;
    type SerializeSeq = Items<'a>;
    type SerializeTuple = Items<'a>;
    type SerializeTupleStruct = Items<'a>;
    type SerializeTupleVariant = Items<'a>;
    type SerializeMap = Members<'a>;
    type SerializeStruct = Members<'a>;
    type SerializeStructVariant = Members<'a>;

    // A scalar holds no field.
    fn serialize_bool(self, _: bool) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_i8(self, _: i8) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_i16(self, _: i16) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_i32(self, _: i32) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_i64(self, _: i64) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_i128(self, _: i128) -> Result<Option<Found>, Refused> {
        // serde_json may refuse one out of 64 bits: let it say so.
        Err(Refused)
    }
    fn serialize_u8(self, _: u8) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_u16(self, _: u16) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_u32(self, _: u32) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_u64(self, _: u64) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_u128(self, _: u128) -> Result<Option<Found>, Refused> {
        Err(Refused)
    }
    fn serialize_f32(self, _: f32) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_f64(self, _: f64) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_char(self, _: char) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_str(self, _: &str) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Option<Found>, Refused> {
        // An array of numbers, none of which holds a field.
        Ok(None)
    }
    fn serialize_none(self) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Option<Found>, Refused> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<Option<Found>, Refused> {
        Ok(None)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Option<Found>, Refused> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Option<Found>, Refused> {
        let inner = value.serialize(Against { given: inside(self.given, variant) })?;
        Ok(wrapped(self.given, variant, inner))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Items<'a>, Refused> {
        Ok(Items::open(self.given, None))
    }
    fn serialize_tuple(self, _: usize) -> Result<Items<'a>, Refused> {
        Ok(Items::open(self.given, None))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Items<'a>, Refused> {
        Ok(Items::open(self.given, None))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Items<'a>, Refused> {
        Ok(Items::open(inside(self.given, variant), Some((self.given, variant))))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Members<'a>, Refused> {
        Ok(Members::open(self.given, None))
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Members<'a>, Refused> {
        // serde_json's raw value writes its text as it is: not a struct.
        if name == "$serde_json::private::RawValue" {
            return Err(Refused);
        }
        Ok(Members::open(self.given, None))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Members<'a>, Refused> {
        Ok(Members::open(inside(self.given, variant), Some((self.given, variant))))
    }
}

crate::canon::typed::forwarding_impls!(Items, Members, Option<Found>, |key| key);

impl ser::SerializeMap for Members<'_> {
    type Ok = Option<Found>;
    type Error = Refused;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Refused> {
        self.key = Some(key_text(key)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        let key = self.key.take().ok_or(Refused)?;
        self.member(&key, value)
    }
    fn end(self) -> Result<Option<Found>, Refused> {
        self.close()
    }
}
