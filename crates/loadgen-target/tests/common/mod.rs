//! A tiny blocking HTTP/1.1 client, enough to check exact responses.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Keeps one connection open; responses are read by content-length.
pub struct Client<S: Read + Write> {
    reader: BufReader<S>,
}

impl<S: Read + Write> Client<S> {
    pub fn new(stream: S) -> Self {
        Client {
            reader: BufReader::new(stream),
        }
    }

    pub fn send(&mut self, raw: &str) {
        self.reader.get_mut().write_all(raw.as_bytes()).unwrap();
        self.reader.get_mut().flush().unwrap();
    }

    pub fn get(&mut self, target: &str) -> Response {
        self.send(&format!("GET {target} HTTP/1.1\r\nhost: localhost\r\n\r\n"));
        self.read_response()
    }

    pub fn read_response(&mut self) -> Response {
        let mut line = String::new();
        self.reader.read_line(&mut line).unwrap();
        let status: u16 = line
            .split(' ')
            .nth(1)
            .unwrap_or_else(|| panic!("bad status line {line:?}"))
            .parse()
            .unwrap();
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).unwrap();
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            let (name, value) = trimmed.split_once(':').unwrap();
            headers.push((name.to_string(), value.trim().to_string()));
        }
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
        };
        let len: usize = response
            .header("content-length")
            .expect("content-length")
            .parse()
            .unwrap();
        response.body = vec![0; len];
        self.reader.read_exact(&mut response.body).unwrap();
        response
    }
}
