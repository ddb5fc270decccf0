//! `rollcall rules schema`: the JSON Schemas of rollcall's files, generated
//! from the types serde reads them with (see `rollcall_core::schema`).

use std::path::Path;
use std::process::ExitCode;

use rollcall_core::schema::{self, Published};
use rollcall_store::file::Existing;

use crate::fail::{Context, Fail};

/// The text of a schema file: pretty JSON, two spaces, a final newline.
pub fn schema_text(published: &Published) -> String {
    let mut text = serde_json::to_string_pretty(&published.schema).expect("a schema prints");
    text.push('\n');
    text
}

/// `rollcall rules schema [NAME] [-o DIR]`: lists the schemas; prints one;
/// or writes one or all of them into DIR as `NAME.json`, replacing what is
/// there (they are generated).
pub fn schema(name: Option<&str>, output: Option<&Path>) -> Result<ExitCode, Fail> {
    let chosen = match name {
        None => schema::all(),
        Some(name) => vec![schema::named(name).ok_or_else(|| unknown_schema(name))?],
    };
    match (name, output) {
        (None, None) => {
            for p in &chosen {
                say!("{:<36} {}", p.name, p.about);
            }
            say!("\n(rollcall rules schema NAME prints one; -o DIR writes them as DIR/NAME.json)");
        }
        (Some(_), None) => show!("{}", schema_text(&chosen[0])),
        (_, Some(dir)) => {
            std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
            for p in &chosen {
                let path = dir.join(format!("{}.json", p.name));
                crate::output::files::write_atomically(&path, Existing::Replace, schema_text(p).as_bytes())?;
            }
            say!("wrote {} schema(s) to {}", chosen.len(), dir.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn unknown_schema(name: &str) -> Fail {
    let names: Vec<String> = schema::all().into_iter().map(|p| p.name).collect();
    fail!("no schema {name:?}: the schemas are {}", names.join(", "))
}
