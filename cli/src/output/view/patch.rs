//! How one state differs from the next, as the page applies it.
//!
//! A patch is a list of operations, each `[path]` (delete the key at
//! `path`) or `[path, value]` (set it), `path` being the list of object keys
//! from the root. Objects are compared key by key; anything else (arrays,
//! numbers, strings, null) that differs is set whole. An empty path sets
//! the whole state. JSON Merge Patch (RFC 7396) would be shorter to explain
//! but cannot set a key to `null`, which states do (an activation ends).

use serde_json::{Map, Value};

/// The operations that turn `before` into `after`; none when they are equal.
pub fn diff(before: &Value, after: &Value) -> Vec<Value> {
    let mut ops = Vec::new();
    let mut path = Vec::new();
    walk(before, after, &mut path, &mut ops);
    ops
}

fn walk(before: &Value, after: &Value, path: &mut Vec<String>, ops: &mut Vec<Value>) {
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => objects(b, a, path, ops),
        _ if before == after => {}
        _ => ops.push(Value::Array(vec![path_value(path), after.clone()])),
    }
}

fn objects(before: &Map<String, Value>, after: &Map<String, Value>, path: &mut Vec<String>, ops: &mut Vec<Value>) {
    for (key, old) in before {
        if !after.contains_key(key) {
            path.push(key.clone());
            ops.push(Value::Array(vec![path_value(path)]));
            path.pop();
        } else {
            path.push(key.clone());
            walk(old, &after[key], path, ops);
            path.pop();
        }
    }
    for (key, new) in after {
        if !before.contains_key(key) {
            path.push(key.clone());
            ops.push(Value::Array(vec![path_value(path), new.clone()]));
            path.pop();
        }
    }
}

fn path_value(path: &[String]) -> Value {
    Value::Array(path.iter().cloned().map(Value::String).collect())
}

/// Applies a patch: what the page's JavaScript does, here to test [`diff`].
#[cfg(test)]
pub fn apply(state: &mut Value, ops: &[Value]) {
    for op in ops {
        let op = op.as_array().expect("an operation is an array");
        let path: Vec<&str> = op[0].as_array().expect("a path").iter().map(|k| k.as_str().expect("a key")).collect();
        let Some((last, parents)) = path.split_last() else {
            *state = op[1].clone();
            continue;
        };
        let mut at = &mut *state;
        for key in parents {
            at = &mut at[*key];
        }
        let map = at.as_object_mut().expect("the parent is an object");
        match op.get(1) {
            Some(value) => map.insert(last.to_string(), value.clone()),
            None => map.remove(*last),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_states_give_no_operations() {
        let s = json!({"a": {"b": [1, 2]}, "c": null});
        assert!(diff(&s, &s).is_empty());
    }

    #[test]
    fn a_changed_leaf_is_set_at_its_path() {
        let before = json!({"pieces": {"x": {"broken": false, "at": [1, 2]}}});
        let after = json!({"pieces": {"x": {"broken": true, "at": [1, 2]}}});
        assert_eq!(diff(&before, &after), vec![json!([["pieces", "x", "broken"], true])]);
    }

    #[test]
    fn a_key_set_to_null_is_set_not_deleted_and_a_removed_key_is_deleted() {
        let before = json!({"turn": {"activation": {"leader": "a"}}, "gone": 1});
        let after = json!({"turn": {"activation": null}});
        let ops = diff(&before, &after);
        assert_eq!(ops, vec![json!([["gone"]]), json!([["turn", "activation"], null])]);
    }

    #[test]
    fn arrays_are_replaced_whole_and_a_new_key_is_added() {
        let before = json!({"cup": ["a", "b"]});
        let after = json!({"cup": ["b"], "new": {"k": 1}});
        assert_eq!(diff(&before, &after), vec![json!([["cup"], ["b"]]), json!([["new"], {"k": 1}])]);
    }

    #[test]
    fn a_state_that_is_not_an_object_is_replaced_at_the_root() {
        assert_eq!(diff(&json!(1), &json!([2])), vec![json!([[], [2]])]);
    }

    #[test]
    fn applying_the_patch_gives_the_after_state() {
        let before = json!({"a": {"b": 1, "c": [1], "d": {"e": null}}, "f": "x", "g": true});
        let after = json!({"a": {"b": 2, "c": [1, 2], "d": {"e": {"h": 1}}}, "g": null, "i": 3});
        let mut state = before.clone();
        apply(&mut state, &diff(&before, &after));
        assert_eq!(state, after);
    }
}
