//! Quantities with units in scenario files: [`Dur`], [`Rate`] and
//! [`Bytes`] read `"2.3 us"`, `"940 Mb/s"` and `"12 KiB"` through
//! [`sim_core::units`], and refuse bare numbers where a unit is needed.

use serde::{Deserialize, Deserializer};
use sim_core::{Bandwidth, Time, limits, units};

/// A time with a unit (`"2.3 us"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dur(pub Time);
/// A rate with a unit (`"940 Mb/s"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate(pub Bandwidth);
/// A rate or a keyword meaning "no limit" (`"none"`, `"unlimited"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit(pub Option<Bandwidth>);

impl<'de> Deserialize<'de> for Limit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Read as a rate, so that a bare number gets the rate's "no unit"
        // message rather than serde's "expected a string".
        match UnitValue::deserialize(d)? {
            UnitValue::Text(s) if matches!(s.trim(), "none" | "unlimited") => Ok(Limit(None)),
            v => Rate::from_unit_value(v).map(|r| Limit(Some(r.0))),
        }
    }
}

/// A size in bytes: a non-negative integer or a string with a unit
/// (`"12 KiB"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(pub u64);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match UnitValue::deserialize(d)? {
            UnitValue::Text(s) => units::parse_time(&s)
                .map_err(|e| e.to_string())
                .and_then(|t| {
                    limits::check_duration(t).map_err(|m| format!("`{s}`: {m}"))?;
                    Ok(Dur(t))
                })
                .map_err(serde::de::Error::custom),
            UnitValue::Int(i) => Err(serde::de::Error::custom(format!(
                "time {i} has no unit: write e.g. \"{i} ns\" or \"{i} us\""
            ))),
            UnitValue::Float(f) => Err(serde::de::Error::custom(format!(
                "time {f} has no unit: write e.g. \"{f} us\""
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Rate::from_unit_value(UnitValue::deserialize(d)?)
    }
}

impl Rate {
    fn from_unit_value<E: serde::de::Error>(v: UnitValue) -> Result<Self, E> {
        match v {
            UnitValue::Text(s) => units::parse_rate(&s)
                .map(Rate)
                .map_err(serde::de::Error::custom),
            UnitValue::Int(i) => Err(serde::de::Error::custom(format!(
                "rate {i} has no unit: write e.g. \"{i} B/s\" or \"{i} Gb/s\""
            ))),
            UnitValue::Float(f) => Err(serde::de::Error::custom(format!(
                "rate {f} has no unit: write e.g. \"{f} GB/s\""
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match UnitValue::deserialize(d)? {
            UnitValue::Text(s) => units::parse_bytes(&s)
                .map(Bytes)
                .map_err(serde::de::Error::custom),
            UnitValue::Int(i) if i < 0 => Err(serde::de::Error::custom(format!(
                "size {i} is negative; sizes are 0 or more bytes"
            ))),
            UnitValue::Int(i) => Ok(Bytes(i as u64)),
            UnitValue::Float(f) => Err(serde::de::Error::custom(format!(
                "size {f} is not a whole number of bytes; write e.g. \"12 KiB\""
            ))),
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum UnitValue {
    Int(i64),
    Float(f64),
    Text(String),
}
