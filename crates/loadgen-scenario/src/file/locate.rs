//! Where in the file a deserialization error is. The reader names the
//! field by a path in which the keys of the file's own mappings (scenario
//! names, header names) show as `?`, and places an unknown field at its
//! enclosing value; this finds the exact key, and the path with every key
//! written out.

use marked_yaml::{Marker, Node};

/// A place in the file: the key path and where its node starts.
pub struct Place {
    pub path: String,
    pub mark: Option<Marker>,
}

/// The unknown key `field` in the mapping at `path` (as the reader writes it).
pub fn unknown_key(root: &Node, path: &str, field: &str) -> Option<Place> {
    let segments = segments(path);
    let mut found = None;
    search(
        root,
        &segments,
        &mut String::new(),
        &mut |node, at| {
            let mapping = node.as_mapping()?;
            let (key, _) = mapping.iter().find(|(k, _)| k.as_str() == field)?;
            Some(Place {
                path: join(at, field),
                mark: key.span().start().copied(),
            })
        },
        &mut found,
    );
    found
}

/// The path of the node that starts at `mark`, along the reader's `path`.
pub fn node_at(root: &Node, path: &str, mark: Marker) -> Option<String> {
    let segments = segments(path);
    let mut found = None;
    search(
        root,
        &segments,
        &mut String::new(),
        &mut |node, at| {
            (node.span().start() == Some(&mark)).then(|| Place {
                path: at.to_string(),
                mark: Some(mark),
            })
        },
        &mut found,
    );
    found.map(|p| p.path)
}

#[derive(Debug, PartialEq)]
enum Segment {
    Key(String),
    AnyKey,
    Index(usize),
}

fn segments(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            out.push(if name == "?" {
                Segment::AnyKey
            } else {
                Segment::Key(name.to_string())
            });
        }
        while let Some(close) = rest.find(']') {
            if let Ok(i) = rest[1..close].parse() {
                out.push(Segment::Index(i));
            }
            rest = &rest[close + 1..];
        }
    }
    out
}

fn search(
    node: &Node,
    segments: &[Segment],
    at: &mut String,
    test: &mut dyn FnMut(&Node, &str) -> Option<Place>,
    found: &mut Option<Place>,
) {
    if found.is_some() {
        return;
    }
    let Some((first, rest)) = segments.split_first() else {
        *found = test(node, at);
        return;
    };
    let len = at.len();
    match first {
        Segment::Key(key) => {
            if let Some(child) = node.as_mapping().and_then(|m| m.get_node(key)) {
                if len > 0 {
                    at.push('.');
                }
                at.push_str(key);
                search(child, rest, at, test, found);
            }
        }
        Segment::AnyKey => {
            for (key, child) in node.as_mapping().into_iter().flat_map(|m| m.iter()) {
                at.truncate(len);
                if len > 0 {
                    at.push('.');
                }
                at.push_str(key.as_str());
                search(child, rest, at, test, found);
                if found.is_some() {
                    return;
                }
            }
        }
        Segment::Index(i) => {
            if let Some(child) = node.as_sequence().and_then(|s| s.get_node(*i)) {
                at.push_str(&format!("[{i}]"));
                search(child, rest, at, test, found);
            }
        }
    }
    at.truncate(len);
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_readers_paths() {
        assert_eq!(
            segments("scenarios.?.steps[1].checks"),
            [
                Segment::Key("scenarios".into()),
                Segment::AnyKey,
                Segment::Key("steps".into()),
                Segment::Index(1),
                Segment::Key("checks".into())
            ]
        );
    }

    #[test]
    fn finds_an_unknown_key() {
        let root = marked_yaml::parse_yaml(
            0,
            "scenarios:\n  a:\n    steps: []\n  b:\n    steps:\n      - nmae: x\n",
        )
        .unwrap();
        let place = unknown_key(&root, "scenarios.?.steps[0]", "nmae").unwrap();
        assert_eq!(place.path, "scenarios.b.steps[0].nmae");
        assert_eq!(place.mark.map(|m| (m.line(), m.column())), Some((6, 9)));
    }
}
