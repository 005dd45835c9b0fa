//! A request to the app, read in full: its head and its body.

use std::borrow::Cow;

use bytes::Bytes;
use cookie::Cookie;
use http::header::{AUTHORIZATION, COOKIE, HOST};
use http::request::Parts;
use http::Method;

pub(crate) struct AppRequest<'a> {
    pub(crate) head: &'a Parts,
    pub(crate) body: Bytes,
}

impl AppRequest<'_> {
    pub(crate) fn method(&self) -> &Method {
        &self.head.method
    }

    pub(crate) fn path(&self) -> &str {
        self.head.uri.path()
    }

    /// The query string as sent, without the `?`; empty when there is none.
    pub(crate) fn query(&self) -> &str {
        self.head.uri.query().unwrap_or("")
    }

    /// GET and HEAD are answered alike (HEAD without the body).
    pub(crate) fn is_get(&self) -> bool {
        self.head.method == Method::GET || self.head.method == Method::HEAD
    }

    /// The query's parameters, decoded, in order.
    pub(crate) fn query_pairs(&self) -> form_urlencoded::Parse<'_> {
        form_urlencoded::parse(self.query().as_bytes())
    }

    /// A query parameter; the last one wins when it is repeated, as for the
    /// parameters of the benchmark responses.
    pub(crate) fn query_param(&self, name: &str) -> Option<Cow<'_, str>> {
        self.query_pairs()
            .filter(|(key, _)| key == name)
            .map(|(_, value)| value)
            .last()
    }

    /// The host the request was sent to: HTTP/2's and HTTP/3's
    /// `:authority`, or HTTP/1.1's `Host` header.
    pub(crate) fn authority(&self) -> Option<&str> {
        match self.head.uri.authority() {
            Some(authority) => Some(authority.as_str()),
            None => self.header(HOST.as_str()),
        }
    }

    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.head.headers.get(name)?.to_str().ok()
    }

    /// The cookies the request carried, in order. HTTP/2 and HTTP/3
    /// clients may split them over several `cookie` fields.
    pub(crate) fn cookies(&self) -> impl Iterator<Item = Cookie<'_>> {
        self.head
            .headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(Cookie::split_parse)
            .filter_map(Result::ok)
    }

    pub(crate) fn cookie(&self, name: &str) -> Option<Cookie<'_>> {
        self.cookies().find(|cookie| cookie.name() == name)
    }

    /// The token of an `Authorization: Bearer TOKEN` header.
    pub(crate) fn bearer_token(&self) -> Option<&str> {
        let value = self.head.headers.get(AUTHORIZATION)?.to_str().ok()?;
        let (scheme, token) = value.split_once(' ')?;
        let token = token.trim();
        (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
    }
}
