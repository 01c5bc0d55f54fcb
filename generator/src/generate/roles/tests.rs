use super::*;
use crate::output::yaml::{render_documents, render_yaml};
use kube_markers_rbac::sample::{random_markers, tricky_markers};
use kube_markers_rbac::{RoleKey, Rule, generate_roles};

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> Rule {
    let owned = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
    Rule {
        groups: owned(groups),
        resources: owned(resources),
        verbs: owned(verbs),
        ..Rule::default()
    }
}

/// Every role the generator renders is written as the general YAML writer writes it; most
/// take the direct writer (quoted `""` and `*` included), the rest fall back to the general one.
#[test]
fn direct_yaml_is_what_the_general_writer_writes() {
    let (mut direct, mut general) = (0, 0);
    let mut check = |roles: &[GeneratedRole]| {
        for role in roles {
            let expected = render_yaml(&role.to_object().to_value());
            let mut text = String::from("kept");
            if write_direct_yaml(role, &mut text) {
                assert_eq!(text["kept".len()..], expected, "{role:?}");
                direct += 1;
            } else {
                assert_eq!(text, "kept", "a refused role leaves nothing behind");
                general += 1;
            }
        }
        let docs: Vec<serde_json::Value> = roles.iter().map(|r| r.to_object().to_value()).collect();
        assert_eq!(
            render_roles(roles, "# header\n"),
            render_documents("# header\n", &docs)
        );
    };
    for seed in 1..150u64 {
        let markers = tricky_markers(
            seed.wrapping_mul(0x2545_F491_4F6C_DD1D),
            1 + seed as usize % 12,
        );
        check(&generate_roles(&markers, "manager-role"));
        check(&generate_roles(&random_markers(seed, 20), "manager-role"));
    }
    // Roles the aggregation never makes: no rules, a rule without verbs.
    let key = RoleKey {
        namespace: String::new(),
        name: "r".into(),
    };
    check(&[
        GeneratedRole {
            key: key.clone(),
            rules: Vec::new(),
        },
        GeneratedRole {
            key,
            rules: vec![rule(&["apps"], &["pods"], &[])],
        },
    ]);
    assert!(
        direct > 200 && general > 50,
        "{direct} direct, {general} general"
    );
}

/// The forms the direct writer knows, one by one, against the general writer.
#[test]
fn direct_scalars_are_quoted_as_the_general_writer_quotes_them() {
    let role = |value: &str| GeneratedRole {
        key: RoleKey {
            namespace: "ns".into(),
            name: "r".into(),
        },
        rules: vec![rule(&[value], &[value], &[value])],
    };
    for (value, direct) in [
        ("apps", true),
        ("", true),
        ("*", true),
        ("*/scale", true),
        ("/metrics", true),
        ("x.example.com", true),
        ("true", false),
        ("123", false),
        ("*a b", false),
        ("a b", false),
        ("-x", false),
        ("é", false),
        ("a&b", false),
    ] {
        let role = role(value);
        let mut text = String::new();
        assert_eq!(write_direct_yaml(&role, &mut text), direct, "{value:?}");
        if direct {
            assert_eq!(text, render_yaml(&role.to_object().to_value()), "{value:?}");
        }
    }
}
