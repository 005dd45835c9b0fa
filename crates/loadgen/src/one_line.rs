//! Every message loadgen prints about an error is one line, so that a
//! script reading stderr line by line sees one error as one line. A
//! message may quote what the user typed (`--method $'GET\r\nX: y'`) or
//! what a server sent; their line ends and other control characters are
//! shown escaped, as Rust writes them in a string literal.

use std::borrow::Cow;

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
