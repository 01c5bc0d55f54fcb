use super::*;
use serde_json::json;

fn changes(old: Value, new: Value) -> Vec<(Check, String)> {
    compare(old.as_object().unwrap(), new.as_object().unwrap(), false)
        .into_iter()
        .map(|c| (c.check, c.message))
        .collect()
}

fn checks(old: Value, new: Value) -> Vec<Check> {
    changes(old, new).into_iter().map(|(c, _)| c).collect()
}

#[test]
fn each_tightening_is_its_checks() {
    let cases = [
        (
            json!({"type": "string"}),
            json!({"type": "integer"}),
            Check::Type,
        ),
        (json!({}), json!({"enum": ["a"]}), Check::Enum),
        (
            json!({"enum": ["a", "b"]}),
            json!({"enum": ["a"]}),
            Check::Enum,
        ),
        (
            json!({"enum": ["a"]}),
            json!({"enum": ["a", "b"]}),
            Check::Enum,
        ),
        (json!({}), json!({"default": 1}), Check::Default),
        (json!({"default": 1}), json!({}), Check::Default),
        (json!({"default": 1}), json!({"default": 2}), Check::Default),
        (json!({}), json!({"maximum": 5}), Check::Maximum),
        (
            json!({"maximum": 10}),
            json!({"maximum": 5}),
            Check::Maximum,
        ),
        (
            json!({"maxLength": 10}),
            json!({"maxLength": 5}),
            Check::MaxLength,
        ),
        (
            json!({"maxItems": 10}),
            json!({"maxItems": 5}),
            Check::MaxItems,
        ),
        (
            json!({"maxProperties": 10}),
            json!({"maxProperties": 5}),
            Check::MaxProperties,
        ),
        (json!({}), json!({"minimum": 1}), Check::Minimum),
        (json!({"minimum": 1}), json!({"minimum": 2}), Check::Minimum),
        (
            json!({"minLength": 1}),
            json!({"minLength": 2}),
            Check::MinLength,
        ),
        (
            json!({"minItems": 1}),
            json!({"minItems": 2}),
            Check::MinItems,
        ),
        (
            json!({"minProperties": 1}),
            json!({"minProperties": 2}),
            Check::MinProperties,
        ),
        (
            json!({"required": ["a"]}),
            json!({"required": ["a", "b"]}),
            Check::Required,
        ),
        (json!({}), json!({"pattern": "^a"}), Check::Pattern),
        (
            json!({"pattern": "^a"}),
            json!({"pattern": "^b"}),
            Check::Pattern,
        ),
        (json!({"pattern": "^a"}), json!({}), Check::Pattern),
        (json!({}), json!({"nullable": true}), Check::Nullable),
        (json!({"nullable": true}), json!({}), Check::Nullable),
        (
            json!({"description": "a"}),
            json!({"description": "b"}),
            Check::Description,
        ),
        (
            json!({}),
            json!({"x-kubernetes-validations": [{"rule": "self.a > 0"}]}),
            Check::ValidationRules,
        ),
        (
            json!({"x-kubernetes-list-type": "atomic"}),
            json!({"x-kubernetes-list-type": "set"}),
            Check::ListType,
        ),
        (
            json!({"x-kubernetes-list-map-keys": ["name"]}),
            json!({"x-kubernetes-list-map-keys": ["name", "protocol"]}),
            Check::ListMapKeys,
        ),
        (
            json!({}),
            json!({"x-kubernetes-map-type": "atomic"}),
            Check::MapType,
        ),
        (
            json!({}),
            json!({"x-kubernetes-list-type": "set"}),
            Check::ListType,
        ),
        (
            json!({"x-kubernetes-list-type": "map"}),
            json!({}),
            Check::ListType,
        ),
        (
            json!({"format": "int32"}),
            json!({"format": "int64"}),
            Check::Unhandled,
        ),
    ];
    for (old, new, check) in cases {
        assert_eq!(checks(old.clone(), new.clone()), [check], "{old} → {new}");
    }
}

#[test]
fn loosenings_and_equal_nodes_are_no_change() {
    let cases = [
        (json!({"maximum": 5}), json!({"maximum": 10})),
        (json!({"maximum": 5}), json!({})),
        (json!({"minimum": 5}), json!({"minimum": 1})),
        (json!({"minLength": 5}), json!({})),
        (json!({"required": ["a", "b"]}), json!({"required": ["b"]})),
        (
            json!({"x-kubernetes-validations": [{"rule": "self.a > 0"}]}),
            json!({}),
        ),
        (
            json!({"x-kubernetes-validations": [{"rule": "self.a > 0", "message": "a"}]}),
            json!({"x-kubernetes-validations": [{"rule": "self.a > 0", "message": "b"}]}),
        ),
        (json!({"nullable": false}), json!({})),
        // The defaults server-side apply assumes, spelled out.
        (json!({}), json!({"x-kubernetes-list-type": "atomic"})),
        (json!({"x-kubernetes-map-type": "granular"}), json!({})),
        (json!({}), json!({"x-kubernetes-list-map-keys": []})),
        (
            json!({"type": "string", "enum": ["a", "b"]}),
            json!({"enum": ["b", "a"], "type": "string"}),
        ),
    ];
    for (old, new) in cases {
        assert_eq!(changes(old.clone(), new.clone()), [], "{old} → {new}");
    }
}

#[test]
fn added_enum_values_count_only_when_disallowed() {
    let (old, new) = (json!({"enum": ["a"]}), json!({"enum": ["a", "b"]}));
    let allowed = compare(old.as_object().unwrap(), new.as_object().unwrap(), true);
    assert!(allowed.is_empty());
    // Dropping the constraint is an addition of every value.
    let (old, new) = (json!({"enum": ["a"]}), json!({}));
    let allowed = compare(old.as_object().unwrap(), new.as_object().unwrap(), true);
    assert!(allowed.is_empty());
    let disallowed = compare(old.as_object().unwrap(), new.as_object().unwrap(), false);
    assert_eq!(disallowed[0].check, Check::Enum);
}

#[test]
fn messages_say_old_and_new_and_transition_rules_are_named() {
    let all = changes(json!({"maximum": 10}), json!({"maximum": 5}));
    assert_eq!(all[0].1, "maximum decreased: 10 → 5");
    let all = changes(
        json!({}),
        json!({"x-kubernetes-validations": [{"rule": "self == oldSelf"}, {"rule": "self.oldSelfish"}]}),
    );
    assert_eq!(all[0].1, "transition rule added: self == oldSelf");
    assert_eq!(all[1].1, "rule added: self.oldSelfish");
    let all = changes(
        json!({"format": "int32", "title": "x"}),
        json!({"format": "int64"}),
    );
    assert_eq!(
        all[0].1,
        "changed, and no check knows whether it is safe: format \"int32\" → \"int64\", title \"x\" → absent"
    );
}

#[test]
fn one_node_can_break_several_ways_at_once() {
    assert_eq!(
        checks(
            json!({"type": "integer", "maximum": 10, "default": 1}),
            json!({"type": "string", "maximum": 5, "default": "1"})
        ),
        [Check::Type, Check::Default, Check::Maximum]
    );
}
