//! `--call`: which method of the descriptors a run calls.

use prost_reflect::{DescriptorPool, MethodDescriptor};

/// The service and method of `pkg.Service/Method`, also written
/// `pkg.Service.Method` (ghz accepts both) or with a leading `/` (the
/// HTTP/2 path).
fn split(call: &str) -> Result<(&str, &str), String> {
    let call = call.strip_prefix('/').unwrap_or(call);
    let split = call.rsplit_once('/').or_else(|| call.rsplit_once('.'));
    match split {
        Some((service, method))
            if !service.is_empty() && !method.is_empty() && !service.contains('/') =>
        {
            Ok((service, method))
        }
        _ => Err(format!(
            "--call: '{call}' is not a method; write it as package.Service/Method"
        )),
    }
}

/// The fully qualified service of `call`: what `--reflect` asks the server for.
pub fn service_of(call: &str) -> Result<&str, String> {
    split(call).map(|(service, _)| service)
}

/// The unary method `call` names. An unknown name is answered with what
/// the descriptors offer, since the user may have mistyped it.
pub fn find_method(pool: &DescriptorPool, call: &str) -> Result<MethodDescriptor, String> {
    let (service_name, method_name) = split(call)?;
    let Some(service) = pool.get_service_by_name(service_name) else {
        let offered: Vec<String> = pool.services().map(|s| s.full_name().to_owned()).collect();
        return Err(if offered.is_empty() {
            format!("--call: no service '{service_name}': the descriptors define no services")
        } else {
            format!(
                "--call: no service '{service_name}'; the descriptors offer: {}",
                offered.join(", ")
            )
        });
    };
    let Some(method) = service.methods().find(|m| m.name() == method_name) else {
        let offered: Vec<String> = service.methods().map(|m| m.name().to_owned()).collect();
        return Err(format!(
            "--call: service '{service_name}' has no method '{method_name}'; it offers: {}",
            if offered.is_empty() {
                "none".to_owned()
            } else {
                offered.join(", ")
            }
        ));
    };
    let streaming = match (method.is_client_streaming(), method.is_server_streaming()) {
        (false, false) => return Ok(method),
        (true, false) => "client-streaming",
        (false, true) => "server-streaming",
        (true, true) => "bidirectional streaming",
    };
    Err(format!(
        "--call: {service_name}/{method_name} is a {streaming} method; only unary methods can be called"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::tests::test_pool;

    #[test]
    fn calls_are_written_with_a_slash_or_a_dot() {
        assert_eq!(split("a.b.S/M").unwrap(), ("a.b.S", "M"));
        assert_eq!(split("a.b.S.M").unwrap(), ("a.b.S", "M"));
        assert_eq!(split("/a.b.S/M").unwrap(), ("a.b.S", "M"));
        assert_eq!(service_of("a.b.S/M").unwrap(), "a.b.S");
        for bad in ["", "S", "a.b.S/", "/M", "a/b/c", "S."] {
            let err = split(bad).unwrap_err();
            assert!(err.starts_with("--call: "), "{bad}: {err}");
            assert!(err.contains("package.Service/Method"), "{err}");
        }
    }

    #[test]
    fn methods_are_found_by_either_spelling() {
        let pool = test_pool();
        for call in [
            "loadgen.echo.v1.Echo/Say",
            "loadgen.echo.v1.Echo.Say",
            "/loadgen.echo.v1.Echo/Say",
        ] {
            let method = find_method(&pool, call).unwrap();
            assert_eq!(method.full_name(), "loadgen.echo.v1.Echo.Say");
            assert_eq!(method.input().full_name(), "loadgen.echo.v1.EchoRequest");
        }
    }

    #[test]
    fn unknown_names_list_what_there_is() {
        let pool = test_pool();
        let err = find_method(&pool, "loadgen.echo.v1.Nope/Say").unwrap_err();
        assert_eq!(
            err,
            "--call: no service 'loadgen.echo.v1.Nope'; the descriptors offer: loadgen.echo.v1.Echo"
        );
        let err = find_method(&pool, "loadgen.echo.v1.Echo/Shout").unwrap_err();
        assert_eq!(
            err,
            "--call: service 'loadgen.echo.v1.Echo' has no method 'Shout'; it offers: Say, Upload, Watch, Chat"
        );
        let empty = DescriptorPool::new();
        let err = find_method(&empty, "a.B/C").unwrap_err();
        assert!(err.contains("define no services"), "{err}");
    }

    #[test]
    fn streaming_methods_are_refused() {
        let pool = test_pool();
        for (method, kind) in [
            ("Upload", "client-streaming"),
            ("Watch", "server-streaming"),
            ("Chat", "bidirectional streaming"),
        ] {
            let err = find_method(&pool, &format!("loadgen.echo.v1.Echo/{method}")).unwrap_err();
            assert_eq!(
                err,
                format!("--call: loadgen.echo.v1.Echo/{method} is a {kind} method; only unary methods can be called")
            );
        }
    }
}
