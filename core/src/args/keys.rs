//! The keys of an attribute: a [`KeyTable`] per attribute resolves every argument to the key
//! it means, reporting unknown keys (with a did-you-mean) and duplicates in one place.

use super::{Arg, ArgValue, Key};
use crate::ctxt::Ctxt;
use crate::suggest::did_you_mean;

/// One key an attribute accepts.
pub struct KeySpec<T: 'static = ()> {
    /// The canonical, snake_case name.
    pub name: &'static str,
    /// Another spelling accepted for it (controller-gen's camelCase).
    pub alias: Option<&'static str>,
    /// Whether the key may be given more than once (`allow(...)`, `validation(...)`).
    pub repeatable: bool,
    /// How the list of keys in errors shows it, where its form matters: `validation(...)`.
    pub shown_as: Option<&'static str>,
    /// What the attribute's model attaches to the key: the value's shape, the field it fills.
    pub data: T,
}

impl<T> KeySpec<T> {
    pub const fn new(name: &'static str, data: T) -> Self {
        KeySpec {
            name,
            alias: None,
            repeatable: false,
            shown_as: None,
            data,
        }
    }

    pub const fn alias(mut self, alias: &'static str) -> Self {
        self.alias = Some(alias);
        self
    }

    pub const fn repeatable(mut self) -> Self {
        self.repeatable = true;
        self
    }

    pub const fn shown_as(mut self, form: &'static str) -> Self {
        self.shown_as = Some(form);
        self
    }

    fn matches(&self, written: &str) -> bool {
        self.name == written || self.alias == Some(written)
    }
}

/// The keys of one attribute (or of one `key(...)`), and how errors name the attribute.
pub struct KeyTable<T: 'static> {
    /// The attribute as errors name it: `#[rbac]`, `` `validation(...)` ``.
    pub place: &'static str,
    pub keys: &'static [KeySpec<T>],
}

/// What [`KeyTable::read`] learned besides the values: which keys were written, including
/// those whose value was malformed (the error is recorded) and the keys an unknown key was a
/// typo of, so that validation never reports them as missing too.
#[derive(Debug, Clone, Default)]
pub struct Written {
    pub keys: Vec<&'static str>,
}

impl Written {
    pub fn contains(&self, key: &str) -> bool {
        self.keys.contains(&key)
    }

    fn add(&mut self, key: &'static str) {
        if !self.contains(key) {
            self.keys.push(key);
        }
    }
}

impl<T> KeyTable<T> {
    pub fn find(&self, written: &str) -> Option<&'static KeySpec<T>> {
        self.keys.iter().find(|k| k.matches(written))
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.keys.iter().map(|k| k.name).collect()
    }

    /// The error for a key not in the table, with a did-you-mean and the keys there are.
    /// Returns the key it is likely a typo of.
    pub fn unknown(&self, key: &Key, cx: &mut Ctxt) -> Option<&'static str> {
        let names = self.names();
        let suggestion = did_you_mean(key.as_str(), &names);
        let hint = suggestion
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        let shown: Vec<&str> = self
            .keys
            .iter()
            .map(|k| k.shown_as.unwrap_or(k.name))
            .collect();
        cx.push(key.error(format!(
            "unknown key `{key}` in {}{hint} (expected one of: {})",
            self.place,
            shown.join(", ")
        )));
        suggestion
    }

    /// Resolves each argument's key and hands known, first-time keys to `read`, which returns
    /// `false` when it recorded an error for the value. Unknown keys and repeated keys are
    /// reported here, on the key.
    pub fn read<'a>(
        &self,
        args: &'a [Arg],
        cx: &mut Ctxt,
        mut read: impl FnMut(&'static KeySpec<T>, &'a Arg, &mut Ctxt) -> bool,
    ) -> Written {
        let mut written = Written::default();
        for arg in args {
            let Some(spec) = self.find(arg.name()) else {
                // A misspelled key was meant as that key: don't also report it as missing.
                if let Some(meant) = self.unknown(&arg.key, cx) {
                    written.add(meant);
                }
                continue;
            };
            // A value that did not parse has its error: the key only counts as written.
            if matches!(arg.value, ArgValue::Invalid) {
                written.add(spec.name);
                continue;
            }
            if written.contains(spec.name) && !spec.repeatable {
                let alias = if spec.name != arg.name() {
                    format!(" (`{}` is another spelling of `{}`)", arg.name(), spec.name)
                } else {
                    String::new()
                };
                cx.push(arg.key.error(format!(
                    "duplicate key `{}` in {}{alias}",
                    spec.name, self.place
                )));
                continue;
            }
            written.add(spec.name);
            read(spec, arg, cx);
        }
        written
    }
}
