//! Policy options, given on the command line as `name:key=value:key=value`.
//!
//! Each policy declares its options once, with kind, default and meaning (`OptionInfo`); the
//! same table checks a spec, reads the values, and is listed by `ampsched list policies`.

use std::collections::BTreeMap;

use ampsched_model::InputError;

/// What values an option takes, and its default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptionKind {
    /// A number in `min..=max`: every duration and threshold has one, so that none can turn into
    /// a saturated or zero count of nanoseconds (a period must also not be too short to simulate).
    Range { default: f64, min: f64, max: f64 },
    /// Any finite number.
    Number(f64),
    /// A whole number in `min..=max`.
    Integer { default: i64, min: i64, max: i64 },
    /// true or false.
    Flag(bool),
    /// One of a few words.
    Choice { default: &'static str, choices: &'static [&'static str] },
    /// A word or list the policy reads itself (`primary-domain`'s `domain`: a mode or a CPU
    /// list), any text without ':'; the policy's own check (`today::check`) refuses a bad one.
    Text(&'static str),
}

impl OptionKind {
    /// A `quantum_ms` option: the range every policy's quantum has (`limits::QUANTUM_MS`,
    /// which Python policies' `quantum_ms` is checked against too).
    pub const fn quantum_ms(default: f64) -> OptionKind {
        OptionKind::Range { default, min: ampsched_model::limits::QUANTUM_MS.min, max: ampsched_model::limits::QUANTUM_MS.max }
    }
}

/// One option a policy takes: its name, kind and default, and meaning. Defaults live here,
/// next to the reason for them, and nowhere else.
#[derive(Debug, Clone, Copy)]
pub struct OptionInfo {
    pub name: &'static str,
    pub kind: OptionKind,
    pub doc: &'static str,
}

/// Option lists joined into one, in order, at compile time: for policies that share groups of
/// options (the SF estimator's, CAMP's thresholds). `N` must be the total length.
pub const fn joined<const N: usize>(lists: &[&[OptionInfo]]) -> [OptionInfo; N] {
    const NONE: OptionInfo = OptionInfo { name: "", kind: OptionKind::Flag(false), doc: "" };
    let mut out = [NONE; N];
    let (mut k, mut i) = (0, 0);
    while i < lists.len() {
        let mut j = 0;
        while j < lists[i].len() {
            out[k] = lists[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(k == N, "joined: N is not the lists' total length");
    out
}

impl OptionInfo {
    /// The kind in a word, for listings: "number 0.1..1000", "integer 1..64", "true|false", "a|b".
    pub fn kind_text(&self) -> String {
        match self.kind {
            OptionKind::Range { min, max, .. } => format!("number {min}..{max}"),
            OptionKind::Number(_) => "number".into(),
            OptionKind::Integer { min, max, .. } => format!("integer {min}..{max}"),
            OptionKind::Flag(_) => "true|false".into(),
            OptionKind::Choice { choices, .. } => choices.join("|"),
            OptionKind::Text(_) => "text".into(),
        }
    }
}

/// A parsed policy spec.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicySpec {
    pub name: String,
    pub options: BTreeMap<String, String>,
}

impl PolicySpec {
    /// "rr:threshold_ms=50:quantum_ms=10" → name "rr" and two options.
    pub fn parse(spec: &str) -> Result<PolicySpec, InputError> {
        let mut parts = spec.trim().split(':');
        let name = parts.next().unwrap_or("").trim().to_string();
        if name.is_empty() {
            return Err(InputError::new("--policy", spec, "empty policy name"));
        }
        let mut options = BTreeMap::new();
        for part in parts {
            let Some((k, v)) = part.split_once('=') else {
                return Err(InputError::new("--policy", spec, format!("option '{part}' is not of the form key=value")));
            };
            if options.insert(k.trim().to_string(), v.trim().to_string()).is_some() {
                return Err(InputError::new("--policy", spec, format!("option '{}' given twice", k.trim())));
            }
        }
        Ok(PolicySpec { name, options })
    }

    /// The canonical text of the spec (options sorted).
    pub fn canonical(&self) -> String {
        let mut s = self.name.clone();
        for (k, v) in &self.options {
            s.push_str(&format!(":{k}={v}"));
        }
        s
    }
}

/// A spec's options, checked against a policy's `OptionInfo` table: every value given is of its
/// option's kind, and no unknown option is given.
pub struct Options<'a> {
    spec: &'a PolicySpec,
    known: &'static [OptionInfo],
}

impl<'a> Options<'a> {
    pub fn new(spec: &'a PolicySpec, known: &'static [OptionInfo]) -> Result<Self, InputError> {
        for k in spec.options.keys() {
            if !known.iter().any(|o| o.name == k) {
                let names: Vec<&str> = known.iter().map(|o| o.name).collect();
                let takes = if names.is_empty() { "takes no options".to_string() } else { format!("takes: {}", names.join(", ")) };
                return Err(InputError::new("--policy", spec.canonical(), format!("unknown option '{k}' ({} {takes})", spec.name)));
            }
        }
        let o = Options { spec, known };
        for info in known {
            o.check(info)?;
        }
        Ok(o)
    }

    fn info(&self, name: &str) -> &'static OptionInfo {
        // Asking for an option the policy did not declare is a bug in the policy, not bad input.
        self.known.iter().find(|o| o.name == name).unwrap_or_else(|| panic!("option '{name}' is not declared in the policy's table"))
    }

    fn bad(&self, name: &str, expected: &str, got: &str) -> InputError {
        InputError::new("--policy", self.spec.canonical(), format!("option '{name}' must be {expected}, got '{got}'"))
    }

    fn check(&self, info: &OptionInfo) -> Result<(), InputError> {
        let Some(v) = self.spec.options.get(info.name) else { return Ok(()) };
        let number = v.parse::<f64>().ok().filter(|x| x.is_finite());
        let ok = match info.kind {
            OptionKind::Range { min, max, .. } => number.is_some_and(|x| (min..=max).contains(&x)),
            OptionKind::Number(_) => number.is_some(),
            OptionKind::Integer { min, max, .. } => v.parse::<i64>().is_ok_and(|i| (min..=max).contains(&i)),
            OptionKind::Flag(_) => v == "true" || v == "false",
            OptionKind::Choice { choices, .. } => choices.contains(&v.as_str()),
            OptionKind::Text(_) => !v.is_empty(),
        };
        let expected = match info.kind {
            OptionKind::Range { min, max, .. } => format!("a number from {min} to {max}"),
            OptionKind::Number(_) => "a number".to_string(),
            OptionKind::Integer { min, max, .. } => format!("a whole number from {min} to {max}"),
            OptionKind::Flag(_) => "true or false".to_string(),
            OptionKind::Choice { choices, .. } => format!("one of {}", choices.join(", ")),
            OptionKind::Text(_) => "not empty".to_string(),
        };
        if ok {
            Ok(())
        } else {
            Err(self.bad(info.name, &expected, v))
        }
    }

    fn given(&self, name: &str) -> Option<&str> {
        self.spec.options.get(name).map(String::as_str)
    }

    /// A `Number` or `Range` option's value.
    pub fn number(&self, name: &str) -> f64 {
        match self.info(name).kind {
            OptionKind::Number(d) | OptionKind::Range { default: d, .. } => self.given(name).map_or(d, |v| v.parse().expect("checked in new")),
            other => panic!("option '{name}' is {other:?}, not a number"),
        }
    }

    /// A duration option given in milliseconds, as nanoseconds (at least 1).
    pub fn ms(&self, name: &str) -> u64 {
        ampsched_model::defaults::ms_to_ns(self.number(name))
    }

    pub fn integer(&self, name: &str) -> i64 {
        match self.info(name).kind {
            OptionKind::Integer { default, .. } => self.given(name).map_or(default, |v| v.parse().expect("checked in new")),
            other => panic!("option '{name}' is {other:?}, not an integer"),
        }
    }

    pub fn flag(&self, name: &str) -> bool {
        match self.info(name).kind {
            OptionKind::Flag(default) => self.given(name).map_or(default, |v| v == "true"),
            other => panic!("option '{name}' is {other:?}, not a flag"),
        }
    }

    pub fn text(&self, name: &str) -> &str {
        match self.info(name).kind {
            OptionKind::Text(default) => self.given(name).unwrap_or(default),
            other => panic!("option '{name}' is {other:?}, not text"),
        }
    }

    pub fn choice(&self, name: &str) -> &str {
        match self.info(name).kind {
            OptionKind::Choice { default, .. } => self.given(name).unwrap_or(default),
            other => panic!("option '{name}' is {other:?}, not a choice"),
        }
    }
}
