//! The names a user gives, checked as the API server and cargo would take them, and the names
//! derived from them (module names, plurals, the API group).

use crate::Error;

fn dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && s.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// `--domain`: a DNS subdomain of at least two labels (`example.com`).
pub fn domain(s: &str) -> Result<(), Error> {
    if s.len() <= 253 && s.contains('.') && s.split('.').all(dns_label) {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "--domain {s:?} is not a DNS domain: give lower-case labels joined by dots, as \
             `--domain example.com` (API groups become `<group>.{s}`)."
        )))
    }
}

/// `--name`: a cargo package name that is also a Kubernetes name (the bundle's `name`).
pub fn project(s: &str) -> Result<(), Error> {
    if dns_label(s) && s.starts_with(|c: char| c.is_ascii_lowercase()) && s.len() <= 40 {
        if s == "codegen" || s == "test" || s == "tests" {
            return Err(Error::usage(format!(
                "--name {s:?} is taken by the project's own crates: choose another, as \
                 `--name my-operator`."
            )));
        }
        Ok(())
    } else {
        Err(Error::usage(format!(
            "the project name {s:?} must be lower-case letters, digits and `-`, starting with \
             a letter, at most 40 characters (it names a crate, a Namespace and an image): give \
             one with `--name my-operator`."
        )))
    }
}

/// `--group`: a DNS label (`cache`); the API group is `<group>.<domain>`.
pub fn group(s: &str) -> Result<(), Error> {
    if dns_label(s) && s.starts_with(|c: char| c.is_ascii_lowercase()) {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "--group {s:?} must be one lower-case DNS label, as `--group cache` (the API group \
             is then `cache.<domain>`)."
        )))
    }
}

/// `--version`: a Kubernetes API version, `v1`, `v1alpha1`, `v2beta3`.
pub fn version(s: &str) -> Result<(), Error> {
    let ok = s.strip_prefix('v').is_some_and(|rest| {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let (major, tail) = rest.split_at(digits);
        let numbered = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
        !major.is_empty()
            && !major.starts_with('0')
            && (tail.is_empty()
                || tail.strip_prefix("alpha").is_some_and(numbered)
                || tail.strip_prefix("beta").is_some_and(numbered))
    });
    if ok {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "--version {s:?} is not a Kubernetes API version: give `v1`, `v1alpha1` or \
             `v2beta1` (API servers sort versions by this form)."
        )))
    }
}

/// `--kind`: UpperCamelCase ASCII (`Memcached`, `MyDatabase`).
pub fn kind(s: &str) -> Result<(), Error> {
    if s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
        && s.len() <= 63
    {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "--kind {s:?} must be UpperCamelCase letters and digits, as `--kind MyDatabase`."
        )))
    }
}

/// `--plural`: a lower-case DNS label (`mydatabases`).
pub fn plural(s: &str) -> Result<(), Error> {
    if dns_label(s) && !s.contains('-') {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "--plural {s:?} must be lower-case letters and digits, as `--plural mydatabases`."
        )))
    }
}

/// `MyDatabase` → `my_database`: the module of a kind.
pub fn snake(kind: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = kind.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower = i > 0 && !chars[i - 1].is_ascii_uppercase();
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_ascii_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The resource name of a kind, as kubebuilder guesses it: lower-case, English plural.
pub fn default_plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    let consonant_y =
        lower.ends_with('y') && !lower[..lower.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    if consonant_y {
        format!("{}ies", &lower[..lower.len() - 1])
    } else if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        format!("{lower}es")
    } else {
        format!("{lower}s")
    }
}

/// A crate's name as Rust code names it (`my-operator` → `my_operator`).
pub fn crate_ident(name: &str) -> String {
    name.replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_names() {
        assert_eq!(snake("MyDatabase"), "my_database");
        assert_eq!(snake("Memcached"), "memcached");
        assert_eq!(snake("HTTPRoute"), "http_route");
        assert_eq!(snake("CronJob2"), "cron_job2");
        assert_eq!(default_plural("Memcached"), "memcacheds");
        assert_eq!(default_plural("Policy"), "policies");
        assert_eq!(default_plural("Gateway"), "gateways");
        assert_eq!(default_plural("Ingress"), "ingresses");
        assert_eq!(default_plural("Box"), "boxes");
        assert_eq!(crate_ident("my-operator"), "my_operator");
    }

    #[test]
    fn names_are_checked() {
        assert!(domain("example.com").is_ok());
        assert!(domain("example").is_err());
        assert!(domain("Example.com").is_err());
        assert!(project("my-operator").is_ok());
        assert!(project("1op").is_err());
        assert!(project("codegen").is_err());
        assert!(group("cache").is_ok());
        assert!(group("cache.io").is_err());
        for ok in ["v1", "v1alpha1", "v2beta3", "v10"] {
            assert!(version(ok).is_ok(), "{ok}");
        }
        for bad in ["1", "v", "v0", "v1alpha", "v1gamma1", "V1", "v01"] {
            assert!(version(bad).is_err(), "{bad}");
        }
        assert!(kind("MyDatabase").is_ok());
        assert!(kind("myDatabase").is_err());
        assert!(kind("My-Database").is_err());
        assert!(plural("mydatabases").is_ok());
        assert!(plural("My").is_err());
        let e = version("1").unwrap_err();
        assert_eq!(e.code, 2);
        assert!(e.message.contains("give `v1`"), "{e}");
    }
}
