//! Which live threads are a managed runtime's own helpers (`ThreadKind::Runtime`: garbage
//! collector, JIT compiler, VM housekeeping) and which are the application's (`ThreadKind::App`),
//! told apart by thread name: the distinction WASH ("Portable Performance on Asymmetric Multicore
//! Processors", Jibaja et al., CGO 2016, §4.1 and Algorithm 1) gets from inside the VM, which
//! creates its helper threads itself. From outside, a thread's name (`comm`, which Linux cuts at
//! 15 bytes) is what says it.
//!
//! `--runtime-threads PATTERNS`: comma-separated shell-style globs (`*` any run of characters, `?`
//! one character, `[abc]`, `[a-z]`, `[!a-z]` one of or none of a set, `\` makes the next
//! character literal, so `\,` is a comma inside a pattern). A pattern matches the whole name;
//! blanks around each pattern are dropped. A thread whose name matches any pattern is a runtime
//! thread. The defaults (`DEFAULT_RUNTIME_THREADS`) fit HotSpot's and OpenJ9's helper threads.
//!
//! A thread's kind follows its name: a runtime names its helper threads from inside them, right
//! after they start (HotSpot's `NonJavaThread::pre_run` and `JavaThread::thread_main_inner` call
//! `set_native_thread_name`), so the agent may first see a GC thread under its creator's name
//! ("java") and must reclassify it when the name changes (`Monitor`, at the thread's next sample).

use ampsched_model::{InputError, ThreadKind};

/// The option's name, as errors name it.
pub const OPTION: &str = "--runtime-threads";

/// The longest thread name Linux keeps (TASK_COMM_LEN 16, less the NUL).
pub const COMM_BYTES: usize = 15;

/// The default patterns, each with where its names come from. The names are as Linux shows them,
/// cut at 15 bytes; a trailing `*` covers numbered instances and the cut.
pub const DEFAULT_RUNTIME_THREADS: &[(&str, &str)] = &[
    // HotSpot (OpenJDK 11 and later). Threads outside Java: named in NonJavaThread::pre_run.
    ("GC Thread#*", "HotSpot: parallel GC workers, \"GC Thread#N\" (WorkerThreads)"),
    ("G1 *", "HotSpot G1: \"G1 Main Marker\", \"G1 Conc#N\", \"G1 Refine#N\", \"G1 Service\", \"G1 Young RemSet Sampling\""),
    ("VM Thread", "HotSpot: the VM operation thread (safepoints, VM operations)"),
    ("VM Periodic Tas*", "HotSpot: \"VM Periodic Task Thread\" (WatcherThread)"),
    ("C1 CompilerThre*", "HotSpot: \"C1 CompilerThreadN\" (CompileBroker)"),
    ("C2 CompilerThre*", "HotSpot: \"C2 CompilerThreadN\" (CompileBroker)"),
    ("JVMCI*", "HotSpot with Graal: \"JVMCI CompilerThreadN\", \"JVMCI-native CompilerThreadN\" (CompileBroker)"),
    ("Sweeper thread", "HotSpot 9 to 19: the code cache sweeper"),
    // HotSpot's Java-level system threads (java.lang.ref, the JDK's own services).
    ("Reference Handl*", "HotSpot: \"Reference Handler\" (java.lang.ref.Reference)"),
    ("Finalizer*", "HotSpot \"Finalizer\" (java.lang.ref.Finalizer); OpenJ9 \"Finalizer thread\""),
    ("Signal Dispatch*", "HotSpot: \"Signal Dispatcher\""),
    ("Service Thread", "HotSpot: the service thread (JVMTI, low-memory detection, ...)"),
    ("Monitor Deflati*", "HotSpot 17 and later: \"Monitor Deflation Thread\""),
    ("Notification Th*", "HotSpot 14 and later: \"Notification Thread\" (JMX notifications)"),
    ("Attach Listener", "HotSpot: the attach mechanism (jcmd, jstack)"),
    ("Common-Cleaner", "both VMs: java.lang.ref.Cleaner's common instance"),
    // OpenJ9 (thread names in its javacores and thread dumps).
    ("GC Slave", "OpenJ9 up to 0.22: parallel GC workers"),
    ("GC Worker", "OpenJ9 0.23 and later: parallel GC workers"),
    ("Concurrent Mark*", "OpenJ9: \"Concurrent Mark Helper\""),
    ("JIT Compilation*", "OpenJ9: \"JIT Compilation Thread-NNN\""),
    ("JIT Diagnostic*", "OpenJ9: \"JIT Diagnostic Compilation Thread-NNN\""),
    ("JIT-SamplerThre*", "OpenJ9: \"JIT-SamplerThread\""),
    ("IProfiler", "OpenJ9: the JIT's interpreter profiler"),
    ("Attach API wait*", "OpenJ9: \"Attach API wait loop\""),
];

/// The defaults as the option takes them (comma-separated).
pub fn default_spec() -> String {
    DEFAULT_RUNTIME_THREADS.iter().map(|(p, _)| *p).collect::<Vec<_>>().join(",")
}

/// One element of a glob.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Literal(char),
    /// `?`
    One,
    /// `*`
    Any,
    /// `[...]`: ranges (a single character is a range of one), negated with `!` or `^`.
    Set {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
}

/// One shell-style pattern, matched against a whole thread name.
#[derive(Debug, Clone, PartialEq)]
pub struct Glob {
    text: String,
    tokens: Vec<Token>,
}

impl Glob {
    /// Parse one pattern; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<Glob, String> {
        let mut tokens = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '*' => {
                    if tokens.last() != Some(&Token::Any) {
                        tokens.push(Token::Any); // "**" is "*"
                    }
                }
                '?' => tokens.push(Token::One),
                '\\' => match chars.next() {
                    Some(l) => tokens.push(Token::Literal(l)),
                    None => return Err("ends with a lone '\\' (escape what?)".into()),
                },
                '[' => {
                    let negated = matches!(chars.peek(), Some('!') | Some('^'));
                    if negated {
                        chars.next();
                    }
                    let mut ranges = Vec::new();
                    let mut closed = false;
                    // A ']' first in the set is a member, as in the shell.
                    let mut first = true;
                    while let Some(c) = chars.next() {
                        if c == ']' && !first {
                            closed = true;
                            break;
                        }
                        first = false;
                        let lo = if c == '\\' { chars.next().ok_or("ends inside a '[...]' set")? } else { c };
                        let hi = if chars.peek() == Some(&'-') {
                            let mut ahead = chars.clone();
                            ahead.next();
                            match ahead.peek() {
                                Some(&']') | None => lo, // a trailing '-' is a member
                                Some(_) => {
                                    chars.next();
                                    let h = chars.next().expect("peeked");
                                    let h = if h == '\\' { chars.next().ok_or("ends inside a '[...]' set")? } else { h };
                                    if h < lo {
                                        return Err(format!("range '{lo}-{h}' runs backwards"));
                                    }
                                    h
                                }
                            }
                        } else {
                            lo
                        };
                        ranges.push((lo, hi));
                    }
                    if !closed {
                        return Err("has a '[' set without its closing ']'".into());
                    }
                    tokens.push(Token::Set { ranges, negated });
                }
                c => tokens.push(Token::Literal(c)),
            }
        }
        Ok(Glob { text: text.to_string(), tokens })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The fewest bytes a name it matches can have (a `?` or a set is at least one byte).
    fn min_bytes(&self) -> usize {
        self.tokens
            .iter()
            .map(|t| match t {
                Token::Literal(c) => c.len_utf8(),
                Token::One | Token::Set { .. } => 1,
                Token::Any => 0,
            })
            .sum()
    }

    /// Whether `name` matches the whole pattern. Backtracks only to the last `*` (the classic
    /// wildcard algorithm): linear in practice, and names are at most 15 bytes.
    pub fn matches(&self, name: &str) -> bool {
        let name: Vec<char> = name.chars().collect();
        let (mut p, mut n) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while n < name.len() {
            match self.tokens.get(p) {
                Some(Token::Any) => {
                    star = Some((p, n));
                    p += 1;
                    continue;
                }
                Some(t) if Self::one(t, name[n]) => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
            match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            }
        }
        self.tokens[p..].iter().all(|t| *t == Token::Any)
    }

    fn one(t: &Token, c: char) -> bool {
        match t {
            Token::Literal(l) => *l == c,
            Token::One => true,
            Token::Set { ranges, negated } => ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated,
            Token::Any => unreachable!("handled by the caller"),
        }
    }
}

/// The patterns that make a thread a runtime thread.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeThreads {
    patterns: Vec<Glob>,
}

impl Default for RuntimeThreads {
    fn default() -> Self {
        RuntimeThreads::parse(&default_spec()).expect("the default patterns are valid")
    }
}

impl RuntimeThreads {
    /// Parse `--runtime-threads`' value: comma-separated globs (a `\,` is a comma inside one).
    /// An empty value or pattern, a malformed one, or one no thread name can match (longer than
    /// Linux's 15 bytes of name) is an input error naming the option and the pattern.
    pub fn parse(spec: &str) -> Result<RuntimeThreads, InputError> {
        let bad = |message: String| InputError::new(OPTION, spec, message);
        if spec.trim().is_empty() {
            return Err(bad("is empty: give comma-separated thread-name patterns, e.g. 'GC*,C2 Compiler*'".into()));
        }
        let mut patterns = Vec::new();
        for (i, raw) in split_unescaped_commas(spec).into_iter().enumerate() {
            let text = raw.trim();
            if text.is_empty() {
                return Err(bad(format!("pattern {} is empty (two commas in a row, or one at an end)", i + 1)));
            }
            let glob = Glob::parse(text).map_err(|why| bad(format!("pattern '{text}' {why}")))?;
            if glob.min_bytes() > COMM_BYTES {
                return Err(bad(format!(
                    "pattern '{text}' can match no thread: Linux cuts thread names at {COMM_BYTES} bytes \
                     (\"C2 CompilerThread0\" shows as \"C2 CompilerThre\"); shorten it or end it in '*'"
                )));
            }
            patterns.push(glob);
        }
        Ok(RuntimeThreads { patterns })
    }

    /// The kind of a thread of this name.
    pub fn kind_of(&self, comm: &str) -> ThreadKind {
        if self.patterns.iter().any(|g| g.matches(comm)) {
            ThreadKind::Runtime
        } else {
            ThreadKind::App
        }
    }

    /// The patterns, as given.
    pub fn patterns(&self) -> impl Iterator<Item = &str> {
        self.patterns.iter().map(Glob::as_str)
    }
}

/// `spec` split at the commas no backslash escapes (the escapes stay, for the glob to read).
fn split_unescaped_commas(spec: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let part = parts.last_mut().expect("never empty");
                part.push('\\');
                if let Some(n) = chars.next() {
                    part.push(n);
                }
            }
            ',' => parts.push(String::new()),
            c => parts.last_mut().expect("never empty").push(c),
        }
    }
    parts
}
