//! The one error type for bad scenarios: a field path, and what is wrong.
//! Every value it echoes is bounded here, where it is built: a user's
//! megabyte-long host name gives one short line, not a megabyte.

use std::fmt;

/// The most characters of one value (a quoted string or a word) an error
/// echoes whole; a longer one is shown as its head, "…", its tail and its
/// length.
pub const MAX_ECHO_CHARS: usize = 60;
/// Characters kept at each end of a shortened value.
const ECHO_END_CHARS: usize = 24;
/// The most names a list in an error gives whole (see [`name_list`]).
pub const MAX_LISTED: usize = 8;
/// Names a longer list shows before "… (N in all)".
const LISTED_HEAD: usize = 6;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Dotted path of the offending field, e.g. `workload[0].client`.
    pub path: String,
    /// What is wrong with the value and what is allowed.
    pub message: String,
}

impl ScenarioError {
    /// The message is kept to one line (a parser's multi-line note is
    /// joined with "; "), so that a user sees one line per problem.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        let message: String = message.into();
        let message = if message.contains('\n') {
            message
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join("; ")
        } else {
            message
        };
        ScenarioError {
            path: bound_values(&path.into()),
            message: bound_values(&message),
        }
    }
}

/// `names` joined with ", ", the first few and "… (N in all)" when there
/// are more than [`MAX_LISTED`]: a list of a topology's hosts or ports in
/// an error stays one short line however large the topology.
pub fn name_list<S: AsRef<str>>(names: &[S]) -> String {
    let shown = if names.len() > MAX_LISTED {
        LISTED_HEAD
    } else {
        names.len()
    };
    let mut out = names[..shown]
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ");
    if shown < names.len() {
        out.push_str(&format!(", … ({} in all)", names.len()));
    }
    out
}

/// `text` with every quoted string and every word (up to a space, a quote,
/// a comma or a semicolon, so a list's names count alone) longer than
/// [`MAX_ECHO_CHARS`] shortened to head…tail and its length.
fn bound_values(text: &str) -> String {
    if text.len() <= MAX_ECHO_CHARS {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len().min(4 * MAX_ECHO_CHARS));
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let end = if c == '"' {
            quoted_len(rest)
        } else if c.is_whitespace() {
            c.len_utf8()
        } else {
            rest.find(|c: char| c.is_whitespace() || matches!(c, '"' | ',' | ';'))
                .unwrap_or(rest.len())
                .max(c.len_utf8())
        };
        let (value, after) = rest.split_at(end);
        out.push_str(&shortened(value, c == '"'));
        rest = after;
    }
    out
}

/// Bytes of the quoted string `s` starts with, quotes included (to its end
/// when unterminated); a backslash escapes the next character.
fn quoted_len(s: &str) -> usize {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return i + 1,
            _ => {}
        }
    }
    s.len()
}

fn shortened(value: &str, quoted: bool) -> String {
    let n = value.chars().count();
    if n <= MAX_ECHO_CHARS {
        return value.to_string();
    }
    let head: String = value.chars().take(ECHO_END_CHARS).collect();
    let tail: String = value.chars().skip(n - ECHO_END_CHARS).collect();
    let close = if quoted && !tail.ends_with('"') {
        "\""
    } else {
        ""
    };
    format!("{head}…{tail}{close} ({n} characters)")
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() || self.path == "." {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}
