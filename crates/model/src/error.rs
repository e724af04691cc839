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

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.source, self.message)
        } else {
            write!(f, "{}: {}: {}", self.source, self.key, self.message)
        }
    }
}

impl std::error::Error for InputError {}

pub type Result<T> = std::result::Result<T, InputError>;
