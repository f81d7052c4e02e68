//! The one error type for bad scenarios: a field path, and what is wrong.

use std::fmt;

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
            path: path.into(),
            message,
        }
    }
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
