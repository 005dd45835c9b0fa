"""Calls the built-in target's gRPC services with grpcio, a client that
loadgen's code was not written from. Usage: client.py MODE HOST:PORT, with
MODE one of echo (cleartext h2c), tls (the PEM certificate to trust in the
env var LOADGEN_TARGET_CERT_PEM) and reflection. Prints the number of calls
made on its last line; raises (non-zero exit) on the first check that fails.
"""

import os
import sys
import tempfile

import grpc
from grpc_tools import protoc

PROTO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "proto")
UNAVAILABLE_MESSAGE = "unavailable: 100% on purpose \u2014 try later"


def stubs():
    """echo_pb2 and echo_pb2_grpc, generated now from proto/echo.proto."""
    out = tempfile.mkdtemp(prefix="loadgen-grpc-")
    rc = protoc.main([
        "grpc_tools.protoc", f"-I{PROTO_DIR}", f"--python_out={out}",
        f"--grpc_python_out={out}", "echo.proto",
    ])
    assert rc == 0, f"grpc_tools.protoc failed with {rc}"
    sys.path.insert(0, out)
    import echo_pb2
    import echo_pb2_grpc
    return echo_pb2, echo_pb2_grpc


def expect_error(call, code, details=None):
    try:
        call()
    except grpc.RpcError as err:
        assert err.code() == code, f"expected {code}, got {err.code()}: {err.details()}"
        if details is not None:
            assert err.details() == details, f"details {err.details()!r}"
        return
    raise AssertionError(f"expected {code}, the call succeeded")


def echo_calls(channel, calls):
    """`calls` echoes, one failure on demand and two unknown methods."""
    echo_pb2, echo_pb2_grpc = stubs()
    stub = echo_pb2_grpc.EchoStub(channel)
    for i in range(calls):
        payload = bytes(range(256)) * (i % 5) + bytes([i % 256])
        reply = stub.Echo(echo_pb2.EchoRequest(message=f"call {i}", payload=payload), timeout=10)
        assert reply.message == f"call {i}", reply.message
        assert reply.payload == payload, f"payload of call {i}"
    request = echo_pb2.EchoRequest(status=14, status_message=UNAVAILABLE_MESSAGE)
    expect_error(lambda: stub.Echo(request, timeout=10), grpc.StatusCode.UNAVAILABLE,
                 UNAVAILABLE_MESSAGE)
    for path in ["/loadgen.echo.v1.Echo/Nope", "/loadgen.echo.v1.Nope/Echo"]:
        method = channel.unary_unary(
            path,
            request_serializer=echo_pb2.EchoRequest.SerializeToString,
            response_deserializer=echo_pb2.EchoReply.FromString,
        )
        expect_error(lambda: method(echo_pb2.EchoRequest(), timeout=10),
                     grpc.StatusCode.UNIMPLEMENTED)
    return calls + 3


def reflection_calls(channel):
    from google.protobuf.descriptor_pool import DescriptorPool
    from grpc_reflection.v1alpha import reflection_pb2
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
        ProtoReflectionDescriptorDatabase,
    )

    database = ProtoReflectionDescriptorDatabase(channel)
    services = list(database.get_services())
    assert "loadgen.echo.v1.Echo" in services, services
    assert "grpc.reflection.v1alpha.ServerReflection" in services, services
    pool = DescriptorPool(database)
    service = pool.FindServiceByName("loadgen.echo.v1.Echo")
    method = service.FindMethodByName("Echo")
    assert method.input_type.full_name == "loadgen.echo.v1.EchoRequest"
    assert method.output_type.full_name == "loadgen.echo.v1.EchoReply"
    fields = [f.name for f in method.input_type.fields]
    assert fields == ["message", "payload", "status", "status_message"], fields
    try:
        pool.FindMessageTypeByName("loadgen.echo.v1.Nope")
        raise AssertionError("found a type that does not exist")
    except KeyError:
        pass
    calls = 3  # list, file of the service (the pool has it after), the miss

    # The v1 service has the same messages: several requests in one stream.
    info = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_by_filename="echo.proto"),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="nope.Nope"),
    ]
    responses = list(info(iter(requests), timeout=10))
    assert len(responses) == 3, responses
    names = [s.name for s in responses[0].list_services_response.service]
    assert "grpc.reflection.v1.ServerReflection" in names, names
    assert len(responses[1].file_descriptor_response.file_descriptor_proto) == 1
    assert responses[2].error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
    return calls + 1


def main():
    mode, address = sys.argv[1], sys.argv[2]
    if mode == "tls":
        credentials = grpc.ssl_channel_credentials(
            root_certificates=os.environ["LOADGEN_TARGET_CERT_PEM"].encode())
        # The target listens on 127.0.0.1; its certificate names localhost.
        options = [("grpc.ssl_target_name_override", "localhost")]
        with grpc.secure_channel(address, credentials, options=options) as channel:
            calls = echo_calls(channel, 20)
    else:
        with grpc.insecure_channel(address) as channel:
            calls = echo_calls(channel, 100) if mode == "echo" else reflection_calls(channel)
    print(calls)


if __name__ == "__main__":
    main()
