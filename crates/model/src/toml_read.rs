//! A small reader over parsed TOML that tracks the key path, so that every error says which key
//! of which file is wrong, and that rejects keys it does not know (a typo is an error, not a
//! silently ignored setting).

use crate::coreset::CoreSet;
use crate::error::{InputError, Result};
use crate::limits::{number_text, Bounds};
use toml::{Table, Value};

/// Core and CPU numbers a list may hold: below `CoreSet::CAPACITY`, so that no list can name a
/// core a machine cannot have or make a reader allocate without bound ("0-99999999999").
fn check_core_number(n: usize) -> std::result::Result<usize, String> {
    if n < CoreSet::CAPACITY {
        Ok(n)
    } else {
        Err(format!("core or CPU number {n} is too large (the largest supported is {})", CoreSet::CAPACITY - 1))
    }
}

/// Parse TOML text; a syntax error reports its line and column.
pub fn parse(source: &str, text: &str) -> Result<Table> {
    text.parse::<Table>().map_err(|e| {
        let (key, msg) = match e.span() {
            Some(span) => {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                (format!("line {line}"), e.message().trim().to_string())
            }
            None => (String::new(), e.message().trim().to_string()),
        };
        InputError::new(source, key, format!("invalid TOML: {msg}"))
    })
}

/// A key's value that is a number or a table of numbers by name (`Node::opt_number_or_map`).
#[derive(Debug, Clone, PartialEq)]
pub enum NumberOrMap {
    Number(f64),
    Map(Vec<(String, f64)>),
}

/// At most `max` characters of `s` (a name echoed in a message), with "…" when cut.
fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        s.chars().take(max).chain(std::iter::once('…')).collect()
    }
}

/// A table being read, with the path that leads to it.
pub struct Node<'a> {
    pub source: &'a str,
    pub path: String,
    table: &'a Table,
    allowed: Vec<&'static str>,
}

impl<'a> Node<'a> {
    pub fn root(source: &'a str, table: &'a Table) -> Self {
        Node { source, path: String::new(), table, allowed: Vec::new() }
    }

    pub fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    pub fn err(&self, key: &str, message: impl Into<String>) -> InputError {
        InputError::new(self.source, self.key_path(key), message)
    }

    fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        self.allowed.push(key);
        self.table.get(key)
    }

    pub fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    pub fn opt_str(&mut self, key: &'static str) -> Result<Option<String>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(self.err(key, format!("expected a string, got {}", v.type_str()))),
        }
    }

    pub fn str(&mut self, key: &'static str) -> Result<String> {
        self.opt_str(key)?.ok_or_else(|| self.err(key, "missing required key"))
    }

    pub fn opt_f64(&mut self, key: &'static str) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Float(x)) if x.is_finite() => Ok(Some(*x)),
            Some(Value::Float(x)) => Err(self.err(key, format!("must be finite, got {x}"))),
            Some(Value::Integer(i)) => Ok(Some(*i as f64)),
            Some(v) => Err(self.err(key, format!("expected a number, got {}", v.type_str()))),
        }
    }

    /// A required number within its documented `bounds` (`limits`).
    pub fn number(&mut self, key: &'static str, bounds: &Bounds) -> Result<f64> {
        self.opt_number(key, bounds)?.ok_or_else(|| self.err(key, "missing required key"))
    }

    pub fn opt_number(&mut self, key: &'static str, bounds: &Bounds) -> Result<Option<f64>> {
        match self.opt_f64(key)? {
            Some(x) if !bounds.contains(x) => Err(self.err(key, format!("must be {}, got {}", bounds.describe(), number_text(x)))),
            other => Ok(other),
        }
    }

    pub fn opt_int(&mut self, key: &'static str) -> Result<Option<i64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Integer(i)) => Ok(Some(*i)),
            Some(v) => Err(self.err(key, format!("expected an integer, got {}", v.type_str()))),
        }
    }

    /// A whole number from 1 to `max`.
    pub fn opt_count(&mut self, key: &'static str, max: u64) -> Result<Option<u32>> {
        debug_assert!(max <= u32::MAX as u64);
        match self.opt_int(key)? {
            None => Ok(None),
            Some(i) if i >= 1 && i as u64 <= max => Ok(Some(i as u32)),
            Some(i) => Err(self.err(key, format!("must be a whole number from 1 to {max}, got {i}"))),
        }
    }

    pub fn count(&mut self, key: &'static str, max: u64) -> Result<u32> {
        self.opt_count(key, max)?.ok_or_else(|| self.err(key, "missing required key"))
    }

    pub fn opt_bool(&mut self, key: &'static str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(self.err(key, format!("expected true or false, got {}", v.type_str()))),
        }
    }

    /// An array of tables (`[[key]]`), each read as a child node named `key[i]`.
    pub fn tables(&mut self, key: &'static str) -> Result<Vec<Node<'a>>> {
        let source = self.source;
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Table(t) => Ok(Node { source, path: self.key_path(&format!("{key}[{i}]")), table: t, allowed: Vec::new() }),
                    other => Err(self.err(&format!("{key}[{i}]"), format!("expected a table, got {}", other.type_str()))),
                })
                .collect(),
            Some(v) => Err(self.err(key, format!("expected an array of tables ([[{key}]]), got {}", v.type_str()))),
        }
    }

    /// A single sub-table (`[key]`).
    pub fn opt_table(&mut self, key: &'static str) -> Result<Option<Node<'a>>> {
        let source = self.source;
        match self.get(key) {
            None => Ok(None),
            Some(Value::Table(t)) => Ok(Some(Node { source, path: self.key_path(key), table: t, allowed: Vec::new() })),
            Some(v) => Err(self.err(key, format!("expected a table, got {}", v.type_str()))),
        }
    }

    /// A non-empty list of numbers, each within `bounds`.
    pub fn opt_number_list(&mut self, key: &'static str, bounds: &Bounds) -> Result<Option<Vec<f64>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) if !items.is_empty() => {
                let mut out = Vec::new();
                for (i, v) in items.iter().enumerate() {
                    let x = match v {
                        Value::Float(x) => *x,
                        Value::Integer(n) => *n as f64,
                        other => return Err(self.err(&format!("{key}[{i}]"), format!("expected a number, got {}", other.type_str()))),
                    };
                    if !bounds.contains(x) {
                        return Err(self.err(&format!("{key}[{i}]"), format!("must be {}, got {}", bounds.describe(), number_text(x))));
                    }
                    out.push(x);
                }
                Ok(Some(out))
            }
            Some(v) => Err(self.err(key, format!("expected a non-empty list of numbers, got {}", v.type_str()))),
        }
    }

    /// A number within `bounds`, or a non-empty inline table of such numbers by name (a CPI per
    /// microarchitecture: `cpi = { "cortex-a15" = 1.1, default = 1.5 }`), its entries sorted by
    /// name; a name longer than `max_name` characters is an error.
    pub fn opt_number_or_map(&mut self, key: &'static str, bounds: &Bounds, max_entries: usize, max_name: usize) -> Result<Option<NumberOrMap>> {
        let number = |node: &Self, at: &str, v: &Value| match v {
            Value::Float(x) if !x.is_finite() => Err(node.err(at, format!("must be finite, got {x}"))),
            Value::Float(x) if !bounds.contains(*x) => Err(node.err(at, format!("must be {}, got {}", bounds.describe(), number_text(*x)))),
            Value::Float(x) => Ok(*x),
            Value::Integer(i) if !bounds.contains(*i as f64) => Err(node.err(at, format!("must be {}, got {i}", bounds.describe()))),
            Value::Integer(i) => Ok(*i as f64),
            other => Err(node.err(at, format!("expected a number, got {}", other.type_str()))),
        };
        match self.get(key) {
            None => Ok(None),
            Some(Value::Table(t)) if t.is_empty() => Err(self.err(key, "expected a number or a table of numbers by name, got an empty table")),
            Some(Value::Table(t)) if t.len() > max_entries => Err(self.err(key, format!("names {} entries; at most {max_entries} are supported", t.len()))),
            Some(Value::Table(t)) => {
                let mut out = Vec::with_capacity(t.len());
                for (name, v) in t {
                    let at = format!("{key}.{}", short(name, max_name));
                    if name.is_empty() || name.chars().count() > max_name {
                        return Err(self.err(&at, format!("a name must have 1 to {max_name} characters")));
                    }
                    out.push((name.clone(), number(self, &at, v)?));
                }
                out.sort_by(|a, b| a.0.cmp(&b.0));
                Ok(Some(NumberOrMap::Map(out)))
            }
            Some(v) => number(self, key, v).map(|x| Some(NumberOrMap::Number(x))),
        }
    }

    /// A required non-empty list of strings.
    pub fn str_list(&mut self, key: &'static str) -> Result<Vec<String>> {
        match self.get(key) {
            None => Err(self.err(key, "missing required key")),
            Some(Value::Array(items)) if !items.is_empty() => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.err(&format!("{key}[{i}]"), format!("expected a string, got {}", other.type_str()))),
                })
                .collect(),
            Some(v) => Err(self.err(key, format!("expected a non-empty list of strings, got {}", v.type_str()))),
        }
    }

    /// A list of whole numbers ≥ 0, or a string of ranges such as "0-3,8".
    pub fn opt_index_list(&mut self, key: &'static str) -> Result<Option<Vec<usize>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for (i, v) in items.iter().enumerate() {
                    match v {
                        Value::Integer(n) if *n >= 0 => out.push(check_core_number(*n as usize).map_err(|m| self.err(&format!("{key}[{i}]"), m))?),
                        other => return Err(self.err(&format!("{key}[{i}]"), format!("expected a core number ≥ 0, got {other}"))),
                    }
                }
                Ok(Some(out))
            }
            Some(Value::String(s)) => parse_ranges(s).map(Some).map_err(|m| self.err(key, m)),
            Some(v) => Err(self.err(key, format!("expected a list of core numbers, got {}", v.type_str()))),
        }
    }

    /// Fail on any key this reader did not ask for.
    pub fn finish(self) -> Result<()> {
        let mut keys: Vec<&String> = self.table.keys().collect();
        keys.sort();
        for k in keys {
            if !self.allowed.iter().any(|a| a == k) {
                let mut known = self.allowed.clone();
                known.sort();
                known.dedup();
                return Err(self.err(k, format!("unknown key (expected one of: {})", known.join(", "))));
            }
        }
        Ok(())
    }
}

/// Parse "0-3,8,10-11" into [0,1,2,3,8,10,11].
pub fn parse_ranges(s: &str) -> std::result::Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("invalid core range '{part}' (expected e.g. \"0-3,8\")");
        match part.split_once('-') {
            Some((a, b)) => {
                let a: usize = check_core_number(a.trim().parse().map_err(|_| bad())?)?;
                let b: usize = check_core_number(b.trim().parse().map_err(|_| bad())?)?;
                if b < a {
                    return Err(bad());
                }
                out.extend(a..=b);
            }
            None => out.push(check_core_number(part.parse().map_err(|_| bad())?)?),
        }
    }
    if out.is_empty() {
        return Err(format!("empty core list '{s}'"));
    }
    Ok(out)
}
