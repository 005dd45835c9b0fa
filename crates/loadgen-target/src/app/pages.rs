//! The app's HTML pages. Element ids and attribute order are part of what
//! scenarios rely on (CSS selectors, regular expressions): see the README.

use super::ids::Id;

pub(crate) fn login(csrf: Id) -> String {
    format!(
        r#"<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Log in</title></head>
<body>
<h1>Log in</h1>
<form id="login" action="/app/login" method="post">
<input type="hidden" name="csrf" value="{csrf}">
<label>Username <input type="text" id="username" name="username" autocomplete="username"></label>
<label>Password <input type="password" id="password" name="password" autocomplete="current-password"></label>
<button type="submit">Log in</button>
</form>
</body>
</html>
"#
    )
}

pub(crate) fn inbox(user: &str, logout_token: Id) -> String {
    let user = html_escape::encode_text(user);
    format!(
        r#"<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Inbox</title></head>
<body>
<h1 id="welcome">Welcome, {user}</h1>
<p id="messages">No new messages.</p>
<a id="logout" href="/app/logout?token={logout_token}">Log out</a>
</body>
</html>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_carry_their_tokens() {
        let csrf = Id::random();
        let page = login(csrf);
        assert!(page.contains(r#"<form id="login" action="/app/login" method="post">"#));
        assert!(page.contains(&format!(
            r#"<input type="hidden" name="csrf" value="{csrf}">"#
        )));
        let token = Id::random();
        let page = inbox("alice", token);
        assert!(page.contains(r#"<h1 id="welcome">Welcome, alice</h1>"#));
        assert!(page.contains(&format!(
            r#"<a id="logout" href="/app/logout?token={token}">Log out</a>"#
        )));
    }

    #[test]
    fn a_user_name_cannot_inject_markup() {
        let page = inbox("<script>alert(1)</script>&", Id::random());
        assert!(page.contains("Welcome, &lt;script&gt;alert(1)&lt;/script&gt;&amp;</h1>"));
    }
}
