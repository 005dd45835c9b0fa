//! The HTML login flow: `/app/login` (the form, then its POST),
//! `/app/inbox` and `/app/logout`, with a session cookie and CSRF and
//! logout tokens bound to the session.

use http::{HeaderValue, Response, StatusCode};

use super::ids::Id;
use super::request::AppRequest;
use super::sessions::User;
use super::{pages, reply, App, PASSWORD};
use crate::body::Body;
use crate::stats::{AppCounters, AppEvent};

/// The session cookie's name.
const SESSION_COOKIE: &str = "sid";
/// Tells the browser to drop the session cookie.
const CLEAR_SESSION_COOKIE: &str = "sid=; Path=/app; Max-Age=0";

const NO_SESSION: &str = "no sid cookie: GET /app/login first";
const UNKNOWN_SESSION: &str = "unknown session: the sid cookie names no session (ended, evicted or made up); GET /app/login again";

/// `GET /app/login`: a new session and its login form.
pub(super) fn page(app: &App, request: &AppRequest, counters: &AppCounters) -> Response<Body> {
    let (id, csrf) = (Id::random(), Id::random());
    let evicted = {
        let mut sessions = app.sessions();
        // The new cookie replaces the old one in the client, so the old
        // session could never be used again.
        if let Ok(old) = session_id(request) {
            sessions.end(&old);
        }
        sessions.start(id, csrf)
    };
    for _ in 0..evicted {
        counters.count(AppEvent::SessionEvicted);
    }
    let mut response = reply::html(StatusCode::OK, pages::login(csrf));
    reply::set_cookie(
        &mut response,
        &format!("{SESSION_COOKIE}={id}; Path=/app; HttpOnly; SameSite=Lax"),
    );
    response
}

/// `POST /app/login`: logs the session in, or says in one line why not.
pub(super) fn submit(app: &App, request: &AppRequest, counters: &AppCounters) -> Response<Body> {
    match log_in(app, request) {
        Ok(()) => {
            counters.count(AppEvent::Login);
            reply::redirect(StatusCode::FOUND, HeaderValue::from_static("/app/inbox"))
        }
        Err(reason) => {
            counters.count(AppEvent::FailedLogin);
            reply::text(StatusCode::FORBIDDEN, reason)
        }
    }
}

/// `GET /app/inbox`: the page of a logged-in session, with its logout link.
pub(super) fn inbox(app: &App, request: &AppRequest) -> Response<Body> {
    let user = session_id(request).ok().and_then(|id| {
        let mut sessions = app.sessions();
        sessions.get_mut(&id)?.user.clone()
    });
    match user {
        Some(user) => reply::html(StatusCode::OK, pages::inbox(&user.name, user.logout_token)),
        None => to_login_page(),
    }
}

/// `GET /app/logout?token=..`: ends a logged-in session given its token.
pub(super) fn logout(app: &App, request: &AppRequest, counters: &AppCounters) -> Response<Body> {
    match log_out(app, request) {
        Ok(()) => {
            counters.count(AppEvent::Logout);
            let mut response = to_login_page();
            reply::set_cookie(&mut response, CLEAR_SESSION_COOKIE);
            response
        }
        Err(reason) => reply::text(StatusCode::FORBIDDEN, reason),
    }
}

fn log_in(app: &App, request: &AppRequest) -> Result<(), &'static str> {
    let (mut username, mut password, mut csrf) = (None, None, None);
    for (key, value) in form_urlencoded::parse(&request.body) {
        match &*key {
            "username" => username = Some(value),
            "password" => password = Some(value),
            "csrf" => csrf = Some(value),
            _ => {}
        }
    }
    let id = session_id(request)?;
    let logout_token = Id::random();
    let mut sessions = app.sessions();
    let session = sessions.get_mut(&id).ok_or(UNKNOWN_SESSION)?;
    let csrf = csrf.ok_or("missing csrf field: send the hidden input of the login form")?;
    if Id::parse(&csrf) != Some(session.csrf) {
        return Err("csrf token does not match the session");
    }
    let username = username
        .filter(|name| !name.is_empty())
        .ok_or("missing username")?;
    if password.as_deref() != Some(PASSWORD) {
        return Err("wrong password");
    }
    session.user = Some(User {
        name: username.into_owned(),
        logout_token,
    });
    Ok(())
}

fn log_out(app: &App, request: &AppRequest) -> Result<(), &'static str> {
    let id = session_id(request)?;
    let token = request
        .query_param("token")
        .ok_or("missing token: log out with the link on /app/inbox")?;
    let mut sessions = app.sessions();
    let session = sessions.get_mut(&id).ok_or(UNKNOWN_SESSION)?;
    let user = session.user.as_ref().ok_or("not logged in")?;
    if Id::parse(&token) != Some(user.logout_token) {
        return Err("wrong logout token");
    }
    sessions.end(&id);
    Ok(())
}

/// The session the request's cookie names, or why it names none.
fn session_id(request: &AppRequest) -> Result<Id, &'static str> {
    let cookie = request.cookie(SESSION_COOKIE).ok_or(NO_SESSION)?;
    Id::parse(cookie.value()).ok_or(UNKNOWN_SESSION)
}

fn to_login_page() -> Response<Body> {
    reply::redirect(StatusCode::FOUND, HeaderValue::from_static("/app/login"))
}
