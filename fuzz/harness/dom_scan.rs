//! The `dom` extractor's tag scanner on a response body from the server,
//! through `DomSelector::scanned`, held to the tree (`scraper`, html5ever)
//! that it stands in for.
//!
//! Input: the first byte picks a selector and an attribute from the lists
//! below; the rest is the body, as the server sent it (any bytes).
//!
//! Invariants: no panic; where the scanner answers, its answer is the
//! tree's: the same first matching element's attribute, or no match. The
//! scanner starts from, and rejoins, what it kept from the last input with
//! the same selector (a fuzzer's next input is mostly its last one), so
//! this holds that to the tree as well.

use loadgen_scenario::dom::DomSelector;
use loadgen_scenario::response::Response;

const SELECTORS: &[&str] = &[
    r#"form#login input[name="csrf"]"#,
    "input[name=csrf]",
    "[name=csrf]",
    ".x input",
    "div span [value]",
    "form [type=hidden i]",
    "input:not([type=hidden])",
    r#"meta[name="csrf-token"]"#,
    "[class~=y]",
    "a[href^='/']",
    "section form input",
    "li[id]",
];

const ATTRIBUTES: &[&str] = &["value", "id", "content", "href"];

pub fn check(input: &[u8]) {
    let Some((&pick, body)) = input.split_first() else {
        return;
    };
    let text = SELECTORS[usize::from(pick) % SELECTORS.len()];
    let attribute = ATTRIBUTES[usize::from(pick / 16) % ATTRIBUTES.len()];
    let selector = DomSelector::parse(text).expect("the harness's selectors parse");
    let response = Response::new(200, Vec::new(), body.to_vec());
    if let Some(scanned) = selector.scanned(&response, attribute) {
        let tree = selector.from_tree(&response, Some(attribute));
        assert_eq!(scanned, tree, "{text} [{attribute}]");
    }
}
