//! The groups of a directed graph's nodes that reach each other.

use std::collections::{BTreeMap, BTreeSet};

/// Every strongly connected component with more than one node.
pub fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = graph
        .keys()
        .chain(graph.values().flat_map(|targets| targets.iter()))
        .collect();
    let reaches = |from: &String, to: &String| -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(node) = stack.pop() {
            if node == to {
                return true;
            }
            if seen.insert(node) {
                stack.extend(graph.get(node).into_iter().flatten());
            }
        }
        false
    };
    let mut components: Vec<Vec<String>> = Vec::new();
    let mut placed = BTreeSet::new();
    for node in &nodes {
        if placed.contains(*node) {
            continue;
        }
        let component: Vec<String> = nodes
            .iter()
            .filter(|other| reaches(node, other) && reaches(other, node))
            .map(|other| other.to_string())
            .collect();
        placed.extend(component.iter().cloned());
        if component.len() > 1 {
            components.push(component);
        }
    }
    components
}
