"""A grpcio server for the gRPC tests: loadgen.test.Greeter with server
reflection, on 127.0.0.1 at a port of the system's choice (printed first).

    greeter_server.py PROTO_DIR OUT_DIR

compiles PROTO_DIR/greeter.proto into OUT_DIR with grpc_tools (also
writing OUT_DIR/greeter.protoset for --protoset) and serves until killed.
Every `fail_every`-th call of the server's life fails with `fail_code`;
with `unique_names`, a name seen before fails with ALREADY_EXISTS.
"""

import sys
import threading
from concurrent import futures

import grpc
from grpc_reflection.v1alpha import reflection
from grpc_tools import protoc

proto_dir, out_dir = sys.argv[1], sys.argv[2]
import importlib.resources

well_known = str(importlib.resources.files("grpc_tools") / "_proto")
status = protoc.main([
    "protoc",
    f"-I{proto_dir}",
    f"-I{well_known}",
    f"--python_out={out_dir}",
    f"--grpc_python_out={out_dir}",
    "--include_imports",
    f"--descriptor_set_out={out_dir}/greeter.protoset",
    "greeter.proto",
])
if status != 0:
    sys.exit(f"protoc failed with {status}")
sys.path.insert(0, out_dir)
import greeter_pb2  # noqa: E402
import greeter_pb2_grpc  # noqa: E402

CODES = {code.value[0]: code for code in grpc.StatusCode}


class Greeter(greeter_pb2_grpc.GreeterServicer):
    def __init__(self):
        self.lock = threading.Lock()
        self.calls = 0
        self.names = set()

    def SayHello(self, request, context):
        with self.lock:
            self.calls += 1
            n = self.calls
            seen = request.name in self.names
            self.names.add(request.name)
        if request.unique_names and seen:
            context.abort(grpc.StatusCode.ALREADY_EXISTS, f"{request.name} again")
        if request.fail_every and n % request.fail_every == 0:
            context.abort(CODES[request.fail_code], f"call {n} fails on purpose")
        return greeter_pb2.HelloReply(message=f"hello {request.name}")


server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
greeter_pb2_grpc.add_GreeterServicer_to_server(Greeter(), server)
reflection.enable_server_reflection(
    (
        greeter_pb2.DESCRIPTOR.services_by_name["Greeter"].full_name,
        reflection.SERVICE_NAME,
    ),
    server,
)
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print(port, flush=True)
server.wait_for_termination()
