//! What one extraction from a 4 KB login page costs, by kind: the `dom`
//! extractor (its tag scanner on a page like the last one but for the
//! token, or for a nonce in its head too, or with its bytes moved by a
//! head of another length, or differing in two places, or in every link
//! and paragraph too, or in a link more than the last, or with nothing
//! kept at all; its scan alone, with nothing kept from or for another
//! page; the `lol_html` stream and the tree it used before), and a
//! `regex` extractor taking the same value. Each response carries a token
//! of its own, as a login page does. `bench/extract` runs it pinned to one
//! CPU and keeps the figures.
//!
//!     cargo run --release -p loadgen-scenario --example extract_cost [ROUNDS]

use loadgen_scenario::dom::DomSelector;
use loadgen_scenario::response::Response;
use std::hint::black_box;
use std::time::{Duration, Instant};

const SELECTOR: &str = r#"form#login input[name="csrf"]"#;
const PATTERN: &str = r#"name="csrf" value="([^"]+)""#;
/// Pages, each with a token of its own, taken in turn.
const PAGES: usize = 16;
/// Extractions per timed batch.
const BATCH: u32 = 2_000;

/// A login page of about 4 KB: the built-in target's form after a header,
/// a navigation list of `links` links and some text, as a real site's
/// login page has, with `head` at the end of its head, `query` after the
/// form's action, and `section` in each link and paragraph.
fn page(token: &str, head: &str, query: &str, section: &str, links: usize) -> String {
    let mut nav = String::new();
    for i in 0..links {
        nav.push_str(&format!(
            "<li class=\"nav-item\"><a class=\"nav-link\" href=\"/{section}/{i}\">Section {i}</a></li>\n"
        ));
    }
    let mut text = String::new();
    for i in 0..8 {
        text.push_str(&format!(
            "<p class=\"lead\">Paragraph {i} of {section}: sign in to read your messages, settings &amp; more.</p>\n"
        ));
    }
    let page = format!(
        r#"<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Log in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/site.css">
{head}</head>
<body>
<header><nav><ul class="nav">
{nav}</ul></nav></header>
<main>
<h1>Log in</h1>
{text}<form id="login" action="/app/login{query}" method="post">
<input type="hidden" name="csrf" value="{token}">
<label>Username <input type="text" id="username" name="username" autocomplete="username"></label>
<label>Password <input type="password" id="password" name="password" autocomplete="current-password"></label>
<button type="submit">Log in</button>
</form>
</main>
<footer><p>Terms, privacy, contact.</p></footer>
</body>
</html>
"#
    );
    assert!(
        (3_500..=4_800).contains(&page.len()),
        "{} bytes",
        page.len()
    );
    page
}

/// Pages and the token each carries.
type Pages = [(String, String)];

/// One way to take the token from a response (the page's token is given
/// for the row that times the response alone).
type Extractor<'a> = &'a dyn Fn(&Response, &str) -> Option<String>;

fn response(body: &[u8]) -> Response {
    Response::new(200, Vec::new(), body.to_vec())
}

/// Nanoseconds per extraction over one batch; each makes its response
/// anew, as each request does.
fn batch(pages: &Pages, extract: Extractor<'_>) -> f64 {
    let start = Instant::now();
    for (page, token) in pages.iter().cycle().take(BATCH as usize) {
        let value = extract(&response(page.as_bytes()), token);
        assert_eq!(black_box(value).as_ref(), Some(token));
    }
    start.elapsed().as_nanos() as f64 / f64::from(BATCH)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|r| r.parse().expect("ROUNDS is a number"))
        .unwrap_or(15);
    let token = |i: usize| format!("{:032x}", 0x3f9c_2a7e_51b0_4d6a_8c1e_9f2b_u128 + i as u128);
    type Part<'a> = &'a dyn Fn(usize) -> String;
    let pages_with = |head: Part<'_>, query: Part<'_>, section: Part<'_>| {
        (0..PAGES)
            .map(|i| {
                (
                    page(&token(i), &head(i), &query(i), &section(i), 32),
                    token(i),
                )
            })
            .collect::<Vec<_>>()
    };
    let none = |_| String::new();
    let section = |_| "section".to_string();
    let comment = |i| format!("<!-- {} -->\n", "-".repeat(i));
    let query = |i| format!("?from={}", "x".repeat(i));
    // Pages that differ in their token alone; in a script's nonce too; in
    // the length of a comment, which moves the rest of the page; in that
    // and the form's action just before the match too; and in every link
    // and paragraph too, as a list made from other data does: each is new
    // to the scanner but for its markup.
    let pages = pages_with(&none, &none, &section);
    let with_nonce = pages_with(
        &|i| {
            let nonce = 0x51b0_4d6a_8c1e_9f2b_u64 + i as u64;
            format!("<script nonce=\"{nonce:016x}\" src=\"/static/site.js\"></script>\n")
        },
        &none,
        &section,
    );
    let moved = pages_with(&comment, &none, &section);
    let two_places = pages_with(&comment, &query, &section);
    let new = pages_with(&comment, &query, &|i| {
        format!("s{i:x}{}", "x".repeat(i % 5))
    });
    // Pages whose list gains a link from one response to the next, as a
    // list of new items does (the first follows the last, fifteen links
    // shorter): each differs from the last in the link added, and from
    // an older page in as many as were added since.
    let grows: Vec<_> = (0..PAGES)
        .map(|i| (page(&token(i), "", "", "section", 26 + i), token(i)))
        .collect();
    let selector = DomSelector::parse(SELECTOR).expect("the selector parses");
    assert!(selector.streams());
    let pattern = regex::Regex::new(PATTERN).expect("the pattern compiles");
    assert!(selector.scans());
    let dom = |r: &Response, _: &str| selector.first(r, Some("value"));
    // Nine texts of the same selector, taken in turn: a thread remembers
    // eight, so each finds nothing kept, as on a page of a template new to
    // the thread (making what is kept included, in the room of the entry
    // that makes way).
    let first_pages: Vec<DomSelector> = (1..=9)
        .map(|spaces| {
            DomSelector::parse(&SELECTOR.replacen(' ', &" ".repeat(spaces), 1))
                .expect("the selector parses")
        })
        .collect();
    let next_first = std::cell::Cell::new(0);
    let first_page = |r: &Response, _: &str| {
        let turn = next_first.get();
        next_first.set((turn + 1) % first_pages.len());
        first_pages[turn].first(r, Some("value"))
    };
    let streamed = |r: &Response, _: &str| selector.without_scan(r, Some("value"));
    let tree = |r: &Response, _: &str| selector.from_tree(r, Some("value"));
    let known = |_: &Response, token: &str| Some(token.to_string());
    let regex = |r: &Response, _: &str| {
        pattern
            .captures(&r.body_text())
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string())
    };
    let scan_alone = |r: &Response, _: &str| selector.scanned_from_start(r, "value").flatten();
    let kinds: [(&str, &Pages, Extractor<'_>); 12] = [
        ("dom (scanner)", &pages, &dom),
        ("dom (nonce)", &with_nonce, &dom),
        ("dom (moved)", &moved, &dom),
        ("dom (two places)", &two_places, &dom),
        ("dom (new page)", &new, &dom),
        ("dom (grows)", &grows, &dom),
        ("dom (first page)", &pages, &first_page),
        ("dom (scan alone)", &pages, &scan_alone),
        ("dom (lol_html)", &pages, &streamed),
        ("dom (tree)", &pages, &tree),
        ("regex", &pages, &regex),
        ("response only", &pages, &known),
    ];
    // `ONLY=regex` (a prefix of a kind's name) times that kind alone, for a profiler.
    let only = std::env::var("ONLY").unwrap_or_default();
    let kinds: Vec<_> = kinds
        .into_iter()
        .filter(|(name, _, _)| name.starts_with(only.as_str()) || *name == "regex")
        .collect();
    let mut times = vec![Vec::new(); kinds.len()];
    let warm_up = Instant::now();
    while warm_up.elapsed() < Duration::from_millis(300) {
        for (_, pages, extract) in &kinds {
            batch(pages, *extract);
        }
    }
    // Interleaved, so that a slower spell of the machine falls on all.
    for _ in 0..rounds {
        for (i, (_, pages, extract)) in kinds.iter().enumerate() {
            times[i].push(batch(pages, *extract));
        }
    }
    println!(
        "page: {} bytes, {PAGES} tokens; {rounds} rounds of {BATCH} extractions each, medians",
        pages[0].0.len()
    );
    let medians: Vec<f64> = times.into_iter().map(median).collect();
    let regex_ns = kinds
        .iter()
        .zip(&medians)
        .find(|((name, _, _), _)| *name == "regex")
        .map(|(_, ns)| *ns)
        .expect("regex is always timed");
    for ((name, _, _), ns) in kinds.iter().zip(&medians) {
        println!(
            "{name:<18} {:>9.2} µs  {:>5.2}x regex",
            ns / 1000.0,
            ns / regex_ns
        );
    }
}
