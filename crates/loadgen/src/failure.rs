//! The error contract of every command: one line on stderr, and the exit
//! code (2 for bad input, 1 when nothing could be done).
//!
//! Every message loadgen prints about an error is one line, so that a
//! script reading stderr line by line sees one error as one line. A
//! message may quote what the user typed (`--method $'GET\r\nX: y'`) or
//! what a server sent; their line ends and other control characters are
//! shown escaped, as Rust writes them in a string literal.

use std::borrow::Cow;
use std::process::ExitCode;

/// Why a command could not do its work: the exit code and its one line.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    /// The input is at fault: exit 2.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            code: 2,
            message: message.into(),
        }
    }

    /// The input was fine, the work could not be done: exit 1.
    pub fn run(message: impl Into<String>) -> Failure {
        Failure {
            code: 1,
            message: message.into(),
        }
    }
}

/// A command's result as the process's exit: a failure said on stderr.
pub fn exit(result: Result<ExitCode, Failure>) -> ExitCode {
    result.unwrap_or_else(|failure| fail(failure.code, &failure.message))
}

/// Says `message` as one line on stderr and returns `code`.
pub fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("loadgen: {}", one_line(message));
    ExitCode::from(code)
}

pub fn one_line(message: &str) -> Cow<'_, str> {
    if !message.chars().any(char::is_control) {
        return Cow::Borrowed(message);
    }
    let mut line = String::with_capacity(message.len() + 8);
    for c in message.chars() {
        if c.is_control() {
            line.extend(c.escape_default());
        } else {
            line.push(c);
        }
    }
    Cow::Owned(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ends_are_escaped() {
        assert_eq!(
            one_line("--method: 'GET\r\nX: y' is not a valid HTTP method"),
            "--method: 'GET\\r\\nX: y' is not a valid HTTP method"
        );
        assert_eq!(one_line("tab\there, bell\u{7}"), "tab\\there, bell\\u{7}");
        assert!(matches!(one_line("plain: é ok"), Cow::Borrowed(_)));
    }
}
