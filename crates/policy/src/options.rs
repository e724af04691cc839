//! Policy options, given on the command line as `name:key=value:key=value`.

use std::collections::BTreeMap;

use ampsched_model::InputError;

/// One option a policy takes: its name, default and meaning. Defaults live here, next to the
/// reason for them, and nowhere else.
#[derive(Debug, Clone, Copy)]
pub struct OptionInfo {
    pub name: &'static str,
    pub default: f64,
    pub doc: &'static str,
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

/// Reads a spec's options against a policy's `OptionInfo` table.
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
        Ok(Options { spec, known })
    }

    /// The option's value, which must be a number > 0.
    pub fn positive(&self, name: &str) -> Result<f64, InputError> {
        let info = self.known.iter().find(|o| o.name == name).expect("option is declared in the policy's table");
        match self.spec.options.get(name) {
            None => Ok(info.default),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
                _ => Err(InputError::new("--policy", self.spec.canonical(), format!("option '{name}' must be a number > 0, got '{v}'"))),
            },
        }
    }

    /// A duration option given in milliseconds, as nanoseconds.
    pub fn ms(&self, name: &str) -> Result<u64, InputError> {
        Ok((self.positive(name)? * 1e6).round().max(1.0) as u64)
    }
}
