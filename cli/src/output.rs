//! What the commands print for a machine: one JSON document.

use rollcall_core::text;
use serde_json::Value;

/// Prints one JSON document; characters serde_json leaves raw that a
/// terminal would act on are escaped (the same JSON value).
pub fn print_json(value: &Value) {
    let text = serde_json::to_string_pretty(value).expect("JSON values print");
    println!("{}", text::escape_json(&text));
}
