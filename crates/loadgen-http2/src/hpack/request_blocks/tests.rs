//! Blocks that use the dynamic table, decoded as a server would: one
//! decoder per connection, every block in the order it was sent.

use super::*;
use crate::hpack::{Decoder, EncoderTable};

type Field = (Vec<u8>, Vec<u8>);

fn owned(headers: &[(&str, &str)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

fn request<'a>(path: &'a str, headers: &'a [(String, String)]) -> RequestFields<'a> {
    RequestFields {
        method: "GET",
        scheme: "http",
        authority: "127.0.0.1:8080",
        path,
        headers,
    }
}

fn expected(request: &RequestFields<'_>) -> Vec<Field> {
    request
        .fields()
        .into_iter()
        .map(|(n, v)| (n.as_bytes().to_vec(), v.as_bytes().to_vec()))
        .collect()
}

fn decode(decoder: &mut Decoder, block: &[u8]) -> Vec<Field> {
    let mut fields = Vec::new();
    decoder
        .decode_fields(block, &mut |n, v| fields.push((n.to_vec(), v.to_vec())))
        .unwrap_or_else(|e| panic!("{e} in {block:02x?}"));
    fields
}

/// Sends the requests at `order` through one connection's table and
/// decodes every block with one server-side decoder.
fn check_connection(blocks: &RequestBlocks, requests: &[RequestFields<'_>], order: &[usize]) {
    let mut table = EncoderTable::default();
    let mut server = Decoder::keeping_fields(4096);
    for &i in order {
        let ((_, update_len), block) = table.choose(blocks.get(i));
        assert_eq!(update_len, 0);
        assert_eq!(
            decode(&mut server, block),
            expected(&requests[i]),
            "request {i}"
        );
        assert!(server.table_size() <= 4096);
    }
}

#[test]
fn the_first_request_indexes_what_every_request_repeats_and_later_ones_refer_to_it() {
    let headers = owned(&[("user-agent", "loadgen/0.1.0"), ("accept", "*/*")]);
    let requests = [request("/", &headers)];
    let blocks = RequestBlocks::encode(&requests);
    // :authority, user-agent and accept; GET, http and / are static.
    assert_eq!(
        blocks.table_size(),
        (10 + 14 + 32) + (10 + 13 + 32) + (6 + 3 + 32)
    );
    let block = blocks.get(0);
    let indexed = block.indexed.expect("shared fields");
    // Incremental indexing with static names: :authority 1, user-agent 58, accept 19.
    assert_eq!(indexed.first[..3], [0x82, 0x86, 0x41]);
    // The oldest entry has the highest index.
    assert_eq!(
        indexed.later,
        [0x82, 0x86, 0x80 | 64, 0x84, 0x80 | 63, 0x80 | 62]
    );
    check_connection(&blocks, &requests, &[0, 0, 0]);
}

#[test]
fn any_of_many_uris_may_go_first_and_the_others_follow_in_any_order() {
    let headers = owned(&[("user-agent", "loadgen/0.1.0"), ("x-run", "42")]);
    let paths = ["/a", "/index.html", "/c?q=1", "/"];
    let requests: Vec<_> = paths.iter().map(|p| request(p, &headers)).collect();
    let blocks = RequestBlocks::encode(&requests);
    assert_eq!(blocks.len(), 4);
    for order in [[0, 1, 2, 3, 0, 1], [2, 0, 3, 1, 2, 2], [3, 3, 1, 0, 2, 1]] {
        check_connection(&blocks, &requests, &order);
    }
}

#[test]
fn only_fields_every_request_carries_alike_are_shared() {
    let a = owned(&[
        ("user-agent", "ua"),
        ("x-only-here", "1"),
        ("x-twice", "v"),
        ("x-twice", "v"),
    ]);
    let b = owned(&[("user-agent", "ua"), ("x-twice", "v"), ("x-twice", "v")]);
    let requests = [request("/a", &a), request("/b", &b)];
    let blocks = RequestBlocks::encode(&requests);
    // :authority and user-agent only.
    assert_eq!(blocks.table_size(), (10 + 14 + 32) + (10 + 2 + 32));
    check_connection(&blocks, &requests, &[1, 0, 1, 0]);
}

#[test]
fn fields_in_another_order_share_nothing() {
    let a = owned(&[("x-one", "1"), ("x-two", "2")]);
    let b = owned(&[("x-two", "2"), ("x-one", "1")]);
    let requests = [request("/", &a), request("/", &b)];
    let blocks = RequestBlocks::encode(&requests);
    assert_eq!(blocks.table_size(), 0);
    assert!(blocks.get(0).indexed.is_none());
    check_connection(&blocks, &requests, &[0, 1, 0]);
}

#[test]
fn what_nghttp2_never_indexes_stays_literal() {
    let headers = owned(&[
        ("authorization", "Bearer secret"),
        ("cookie", "short=1"),
        ("cookie", "a-cookie-of-twenty-bytes-or-more=1"),
        ("if-none-match", "\"abc\""),
        ("x-big", &"v".repeat(3100)),
    ]);
    let requests = [request("/", &headers)];
    let blocks = RequestBlocks::encode(&requests);
    // :authority and the long cookie.
    assert_eq!(blocks.table_size(), (10 + 14 + 32) + (6 + 34 + 32));
    let plain = blocks.get(0).plain;
    // authorization (static name 23) never indexed: 0x10 | 15, then 23 - 15.
    assert!(plain.windows(2).any(|w| w == [0x1f, 23 - 15]));
    check_connection(&blocks, &requests, &[0, 0]);
}

#[test]
fn shared_fields_stop_where_the_initial_table_is_full() {
    let value = "v".repeat(1000);
    let headers: Vec<(String, String)> =
        (0..6).map(|i| (format!("x-h{i}"), value.clone())).collect();
    let requests = [request("/", &headers)];
    let blocks = RequestBlocks::encode(&requests);
    // :authority (56) and three of 1,036 bytes fit in 4,096.
    assert_eq!(blocks.table_size(), 56 + 3 * 1036);
    check_connection(&blocks, &requests, &[0, 0, 0]);
}

#[test]
fn a_lowered_limit_is_announced_once_and_keeps_entries_that_still_fit() {
    let headers = owned(&[("user-agent", "loadgen/0.1.0")]);
    let requests = [request("/", &headers)];
    let blocks = RequestBlocks::encode(&requests);
    let size = blocks.table_size();
    let mut table = EncoderTable::default();
    let mut server = Decoder::keeping_fields(4096);
    let ((_, n), first) = table.choose(blocks.get(0));
    assert_eq!(n, 0);
    decode(&mut server, first);
    // The server lowers its limit to what the entries take.
    table.server_limit(size as u32);
    server.set_max_table_size(size);
    let ((update, n), later) = table.choose(blocks.get(0));
    let mut sent = update[..n].to_vec();
    sent.extend_from_slice(later);
    assert_eq!(later, blocks.get(0).indexed.unwrap().later);
    assert_eq!(decode(&mut server, &sent), expected(&requests[0]));
    // Raising it again changes nothing.
    table.server_limit(4096);
    let ((_, n), again) = table.choose(blocks.get(0));
    assert_eq!((n, again), (0, later));
}

#[test]
fn a_limit_below_the_entries_spoils_the_table_for_the_connection() {
    let headers = owned(&[("user-agent", "loadgen/0.1.0")]);
    let requests = [request("/", &headers)];
    let blocks = RequestBlocks::encode(&requests);
    let mut table = EncoderTable::default();
    let mut server = Decoder::keeping_fields(4096);
    decode(&mut server, table.choose(blocks.get(0)).1);
    table.server_limit(60);
    server.set_max_table_size(60);
    let ((update, n), block) = table.choose(blocks.get(0));
    assert_eq!(&update[..n], [0x3f, 60 - 31]);
    assert_eq!(block, blocks.get(0).plain);
    let mut sent = update[..n].to_vec();
    sent.extend_from_slice(block);
    assert_eq!(decode(&mut server, &sent), expected(&requests[0]));
    for _ in 0..2 {
        let ((_, n), block) = table.choose(blocks.get(0));
        assert_eq!((n, block), (0, blocks.get(0).plain));
        assert_eq!(decode(&mut server, block), expected(&requests[0]));
    }
}

#[test]
fn a_server_without_a_table_gets_plain_blocks_after_an_update_to_zero() {
    let headers = owned(&[("user-agent", "loadgen/0.1.0")]);
    let requests = [request("/", &headers)];
    let blocks = RequestBlocks::encode(&requests);
    let mut table = EncoderTable::default();
    table.server_limit(0);
    let ((update, n), block) = table.choose(blocks.get(0));
    assert_eq!(&update[..n], [0x20]);
    assert_eq!(block, blocks.get(0).plain);
    assert_eq!(table.choose(blocks.get(0)).1, blocks.get(0).plain);
}

#[test]
fn two_sets_of_blocks_never_mix_on_one_connection() {
    let headers = owned(&[("user-agent", "loadgen/0.1.0")]);
    let one = [request("/", &headers)];
    let other_headers = owned(&[("user-agent", "other")]);
    let other = [request("/", &other_headers)];
    let (a, b) = (RequestBlocks::encode(&one), RequestBlocks::encode(&other));
    let mut table = EncoderTable::default();
    let mut server = Decoder::keeping_fields(4096);
    decode(&mut server, table.choose(a.get(0)).1);
    let (_, block) = table.choose(b.get(0));
    assert_eq!(block, b.get(0).plain);
    assert_eq!(decode(&mut server, block), expected(&other[0]));
    assert_eq!(
        decode(&mut server, table.choose(a.get(0)).1),
        expected(&one[0])
    );
}
