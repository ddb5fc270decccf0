//! Canonical bytes written straight from a typed value, without building a
//! [`serde_json::Value`] first: the writer of the engine's inner loop, where
//! every decided roll and fact is encoded to be hashed and compared.
//!
//! The bytes are those [`super::append`] writes for the value's JSON form:
//! keys in byte order, no whitespace, strings escaped as serde_json escapes
//! them, integers only. An object's members are written as they come and
//! put in order at its end only if they came out of order (a struct's
//! fields come in declaration order, an internally tagged enum's tag first).
//! Anything this writer refuses — a float, a map key that is not a string —
//! the caller writes the slow way, which names the culprit.

use serde::ser::{self, Serialize};

/// Why a writer stopped (this one, or `strict`'s ignored-field walk): the
/// caller takes the slow way, through a JSON value, to learn more.
#[derive(Debug)]
pub(crate) struct Refused;

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not written as serde_json writes it")
    }
}

impl std::error::Error for Refused {}

impl ser::Error for Refused {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Refused
    }
}

/// Appends the canonical bytes of `value` to `out`; on `Err`, `out` may
/// hold part of it.
pub(super) fn append<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), Refused> {
    value.serialize(Writer { out })
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

fn string(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *out, s).expect("a write to a Vec succeeds");
}

fn integer(out: &mut Vec<u8>, n: impl Serialize) {
    serde_json::to_writer(&mut *out, &n).expect("a write to a Vec succeeds");
}

/// An object being written: where it starts, and each member's key and
/// where its `"key":value` lies in the buffer.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    start: usize,
    members: Vec<(Key, usize, usize)>,
    /// The key of a map entry, between `serialize_key` and `serialize_value`.
    key: Option<Key>,
    /// Close a variant's wrapping object too (`{"variant":{…}}`).
    variant: bool,
}

enum Key {
    Static(&'static str),
    Owned(String),
}

impl Key {
    fn as_str(&self) -> &str {
        match self {
            Key::Static(s) => s,
            Key::Owned(s) => s,
        }
    }
}

impl<'a> Object<'a> {
    fn open(out: &'a mut Vec<u8>, len: Option<usize>, variant: bool) -> Self {
        out.push(b'{');
        let start = out.len();
        Object { out, start, members: Vec::with_capacity(len.unwrap_or(4)), key: None, variant }
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: Key, value: &T) -> Result<(), Refused> {
        if !self.members.is_empty() {
            self.out.push(b',');
        }
        let at = self.out.len();
        string(self.out, key.as_str());
        self.out.push(b':');
        value.serialize(Writer { out: self.out })?;
        self.members.push((key, at, self.out.len()));
        Ok(())
    }

    fn close(mut self) -> Result<(), Refused> {
        let in_order = self.members.windows(2).all(|w| w[0].0.as_str() < w[1].0.as_str());
        if !in_order {
            self.members.sort_by(|x, y| x.0.as_str().cmp(y.0.as_str()));
            if self.members.windows(2).any(|w| w[0].0.as_str() == w[1].0.as_str()) {
                return Err(Refused); // a key twice: the slow way keeps the last, as a map does
            }
            // The members are put in order from a copy of them written at
            // the buffer's end, in its spare room: no buffer of their own.
            let end = self.out.len();
            self.out.extend_from_within(self.start..end);
            let mut at = self.start;
            for (i, (_, from, to)) in self.members.iter().enumerate() {
                if i > 0 {
                    self.out[at] = b',';
                    at += 1;
                }
                let copied = end + (from - self.start);
                self.out.copy_within(copied..copied + (to - from), at);
                at += to - from;
            }
            self.out.truncate(at);
        }
        self.out.push(b'}');
        if self.variant {
            self.out.push(b'}');
        }
        Ok(())
    }
}

/// An array being written.
struct Array<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
    variant: bool,
}

impl Array<'_> {
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        value.serialize(Writer { out: self.out })
    }

    fn close(self) -> Result<(), Refused> {
        self.out.push(b']');
        if self.variant {
            self.out.push(b'}');
        }
        Ok(())
    }
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = ();
    type Error = Refused;
    type SerializeSeq = Array<'a>;
    type SerializeTuple = Array<'a>;
    type SerializeTupleStruct = Array<'a>;
    type SerializeTupleVariant = Array<'a>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Object<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Refused> {
        self.out.extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Refused> {
        integer(self.out, v);
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Refused> {
        integer(self.out, v);
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Refused> {
        integer(self.out, v);
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Refused> {
        integer(self.out, v);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Refused> {
        // A JSON value holds an integer of 64 bits at most.
        match (i64::try_from(v), u64::try_from(v)) {
            (Ok(v), _) => self.serialize_i64(v),
            (_, Ok(v)) => self.serialize_u64(v),
            _ => Err(Refused),
        }
    }
    fn serialize_u8(self, v: u8) -> Result<(), Refused> {
        integer(self.out, v);
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Refused> {
        integer(self.out, v);
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Refused> {
        integer(self.out, v);
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Refused> {
        integer(self.out, v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), Refused> {
        self.serialize_u64(u64::try_from(v).map_err(|_| Refused)?)
    }
    fn serialize_f32(self, _: f32) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_f64(self, _: f64) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_char(self, v: char) -> Result<(), Refused> {
        string(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Refused> {
        string(self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Refused> {
        // As serde_json writes bytes: an array of numbers.
        let mut array = self.serialize_seq(Some(v.len()))?;
        for b in v {
            ser::SerializeSeq::serialize_element(&mut array, b)?;
        }
        ser::SerializeSeq::end(array)
    }
    fn serialize_none(self) -> Result<(), Refused> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Refused> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Refused> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Refused> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Refused> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Refused> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
        self.out.push(b'{');
        string(self.out, variant);
        self.out.push(b':');
        value.serialize(Writer { out: self.out })?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Array<'a>, Refused> {
        self.out.push(b'[');
        Ok(Array { out: self.out, first: true, variant: false })
    }
    fn serialize_tuple(self, len: usize) -> Result<Array<'a>, Refused> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Array<'a>, Refused> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Array<'a>, Refused> {
        self.out.push(b'{');
        string(self.out, variant);
        self.out.extend_from_slice(b":[");
        Ok(Array { out: self.out, first: true, variant: true })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Object<'a>, Refused> {
        Ok(Object::open(self.out, len, false))
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Object<'a>, Refused> {
        Ok(Object::open(self.out, Some(len), false))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Object<'a>, Refused> {
        self.out.push(b'{');
        string(self.out, variant);
        self.out.push(b':');
        Ok(Object::open(self.out, Some(len), true))
    }
}

/// The impls serde asks of a writer's compound values, which only forward:
/// a sequence's item under four names (`$seq::item`), a struct's field under
/// two (`$object::member`, its key made by `$key`), and each one's end
/// (`close`). Shared by this writer and `strict`'s ignored-field walk.
macro_rules! forwarding_impls {
    ($seq:ident, $object:ident, $ok:ty, |$name:ident| $key:expr) => {
        $crate::canon::typed::forwarding_impls!(@seq $seq, $ok, SerializeSeq::serialize_element, SerializeTuple::serialize_element,
            SerializeTupleStruct::serialize_field, SerializeTupleVariant::serialize_field);
        $crate::canon::typed::forwarding_impls!(@fields $object, $ok, |$name| $key, SerializeStruct, SerializeStructVariant);
    };
    (@seq $seq:ident, $ok:ty, $($trait:ident::$method:ident),+) => {$(
        impl serde::ser::$trait for $seq<'_> {
            type Ok = $ok;
            type Error = $crate::canon::typed::Refused;
            fn $method<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Self::Error> {
                self.item(value)
            }
            fn end(self) -> Result<$ok, Self::Error> {
                self.close()
            }
        }
    )+};
    (@fields $object:ident, $ok:ty, |$name:ident| $key:expr, $($trait:ident),+) => {$(
        impl serde::ser::$trait for $object<'_> {
            type Ok = $ok;
            type Error = $crate::canon::typed::Refused;
            fn serialize_field<T: serde::Serialize + ?Sized>(
                &mut self,
                $name: &'static str,
                value: &T,
            ) -> Result<(), Self::Error> {
                self.member($key, value)
            }
            fn end(self) -> Result<$ok, Self::Error> {
                self.close()
            }
        }
    )+};
}
pub(crate) use forwarding_impls;

forwarding_impls!(Array, Object, (), |key| Key::Static(key));

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Refused> {
        // serde_json writes a map's keys as strings; only string keys are
        // taken here, anything else goes the slow way.
        let value = serde_json::to_value(key).map_err(|_| Refused)?;
        match value {
            serde_json::Value::String(s) => {
                self.key = Some(Key::Owned(s));
                Ok(())
            }
            _ => Err(Refused),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        let key = self.key.take().ok_or(Refused)?;
        self.member(key, value)
    }
    fn end(self) -> Result<(), Refused> {
        self.close()
    }
}
