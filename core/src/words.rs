//! Small helpers for the words messages are made of.

/// A name in the possessive: "axis's" is "axis'", "lt-adams" is "lt-adams's"
/// — except that a name ending in an s takes the apostrophe alone.
pub fn possessive(name: &str) -> String {
    if name.ends_with('s') {
        format!("{name}'")
    } else {
        format!("{name}'s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn possessives() {
        assert_eq!(super::possessive("allies"), "allies'");
        assert_eq!(super::possessive("axis"), "axis'");
        assert_eq!(super::possessive("red"), "red's");
    }
}
