//! Input errors: every problem with a machine, workload or option names where it is and what is wrong.

use std::fmt;

/// A problem with user input. `source` is the file (or `--policy`, `--machine`, ...), `key` the
/// dotted path or line inside it, `message` what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub source: String,
    pub key: String,
    pub message: String,
}

impl InputError {
    pub fn new(source: impl Into<String>, key: impl Into<String>, message: impl Into<String>) -> Self {
        InputError { source: source.into(), key: key.into(), message: message.into() }
    }
}

/// The longest run of non-blank characters an error line echoes whole, and the longest message:
/// a key or value pasted from elsewhere (10 KB of it) is cut, so the line stays one readable
/// line. 256 keeps any ordinary path whole (a file, a Python policy's `path:Class`).
pub const MAX_ECHOED_WORD: usize = 256;
pub const MAX_MESSAGE_CHARS: usize = 1000;

/// `text` with every word longer than `MAX_ECHOED_WORD` characters, and the whole beyond
/// `max_chars`, cut and marked with how much was left out.
pub fn cut_long(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let n = word.chars().count();
        if n > MAX_ECHOED_WORD {
            out.extend(word.chars().take(MAX_ECHOED_WORD / 2));
            out.push_str(&format!("…({} more chars)", n - MAX_ECHOED_WORD / 2));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for ch in text.chars() {
        if ch.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(ch);
        } else {
            word.push(ch);
        }
    }
    flush(&mut word, &mut out);
    let n = out.chars().count();
    if n > max_chars {
        let mut cut: String = out.chars().take(max_chars).collect();
        cut.push_str(&format!("…({} more chars)", n - max_chars));
        return cut;
    }
    out
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = cut_long(&self.message, MAX_MESSAGE_CHARS);
        if self.key.is_empty() {
            write!(f, "{}: {message}", cut_long(&self.source, MAX_ECHOED_WORD))
        } else {
            write!(f, "{}: {}: {message}", cut_long(&self.source, MAX_ECHOED_WORD), cut_long(&self.key, MAX_ECHOED_WORD))
        }
    }
}

impl std::error::Error for InputError {}

pub type Result<T> = std::result::Result<T, InputError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_short_ones_kept() {
        let long = "x".repeat(10_000);
        let e = InputError::new("w.toml", format!("app[0].{long}"), format!("unknown phase kind '{long}' (expected compute)"));
        let line = e.to_string();
        assert!(line.len() < 700, "{line}");
        assert!(line.contains("(9874 more chars)") && line.ends_with("(expected compute)"), "{line}");
        let short = InputError::new("w.toml", "app[0].kind", "unknown phase kind 'comptue' (expected compute)");
        assert_eq!(short.to_string(), "w.toml: app[0].kind: unknown phase kind 'comptue' (expected compute)");
    }

    #[test]
    fn a_long_message_of_short_words_is_cut_too() {
        let spaced = "ab ".repeat(1000);
        let cut = cut_long(&spaced, MAX_MESSAGE_CHARS);
        assert!(cut.ends_with("(2000 more chars)"), "{cut}");
    }
}
