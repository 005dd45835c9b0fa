//! The requests of a run, resolved once from the plan: the method, path,
//! authority and header list of each URI after `-H` overrides. Protocol
//! drivers serialize these once per connection type, never per request.

use crate::plan::Plan;

pub const USER_AGENT: &str = concat!("loadgen/", env!("CARGO_PKG_VERSION"));

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestSpec {
    pub method: String,
    pub path: String,
    pub authority: String,
    /// Regular headers (no Host, no pseudo-headers), lowercase names.
    pub headers: Vec<(String, String)>,
    pub body: Option<bytes::Bytes>,
}

/// One spec per path of the plan, in the plan's order.
pub fn request_specs(plan: &Plan) -> Vec<RequestSpec> {
    let body = plan.body.clone().map(bytes::Bytes::from);
    let mut authority = plan.endpoint.authority.clone();
    let mut method = plan.method.clone();
    let mut headers: Vec<(String, String)> = vec![("user-agent".into(), USER_AGENT.into())];
    for (name, value) in &plan.headers {
        let name = name.to_ascii_lowercase();
        match name.as_str() {
            "host" | ":authority" => authority = value.clone(),
            ":method" => method = value.clone(),
            // h2load accepts these pseudo-headers but they follow from the URI.
            ":scheme" | ":path" => {}
            _ => match headers.iter_mut().find(|(n, _)| *n == name) {
                Some(existing) => existing.1 = value.clone(),
                None => headers.push((name, value.clone())),
            },
        }
    }
    if let Some(body) = &body {
        if !headers.iter().any(|(n, _)| n == "content-length") {
            headers.push(("content-length".into(), body.len().to_string()));
        }
    }
    plan.paths
        .iter()
        .map(|path| RequestSpec {
            method: method.clone(),
            path: path.clone(),
            authority: authority.clone(),
            headers: headers.clone(),
            body: body.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanInput;

    #[test]
    fn headers_override_defaults() {
        let plan = PlanInput {
            uris: vec!["http://h:1/a".into(), "/b".into()],
            headers: vec![
                ("User-Agent".into(), "custom".into()),
                ("Host".into(), "example.com".into()),
                ("x-extra".into(), "1".into()),
            ],
            body: Some(b"hello".to_vec()),
            clients: 1,
            ..PlanInput::default()
        }
        .build()
        .unwrap();
        let specs = request_specs(&plan);
        assert_eq!(specs.len(), 2);
        assert_eq!(specs[1].path, "/b");
        assert_eq!(specs[0].authority, "example.com");
        assert_eq!(specs[0].method, "POST");
        assert_eq!(
            specs[0].headers,
            vec![
                ("user-agent".to_string(), "custom".to_string()),
                ("x-extra".into(), "1".into()),
                ("content-length".into(), "5".into())
            ]
        );
    }
}
