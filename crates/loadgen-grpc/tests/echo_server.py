"""The gRPC server of the tests: grpcio with its reflection service.

Usage: echo_server.py STUBS_DIR [CERT_PEM KEY_PEM]. STUBS_DIR holds
echo_pb2*.py and common_pb2.py, made by grpc_tools.protoc from
tests/protos; with a certificate and key it serves TLS. Prints the bound
port, serves until its standard input closes.
"""

import sys
import threading
from concurrent import futures

sys.path.insert(0, sys.argv[1])

import grpc  # noqa: E402
from grpc_reflection.v1alpha import reflection  # noqa: E402

import echo_pb2  # noqa: E402
import echo_pb2_grpc  # noqa: E402


class Echo(echo_pb2_grpc.EchoServicer):
    def Say(self, request, context):
        return echo_pb2.EchoReply(text=request.text, count=request.count + len(request.tags))


server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
echo_pb2_grpc.add_EchoServicer_to_server(Echo(), server)
reflection.enable_server_reflection(
    [echo_pb2.DESCRIPTOR.services_by_name["Echo"].full_name, reflection.SERVICE_NAME],
    server,
)
if len(sys.argv) > 3:
    with open(sys.argv[2], "rb") as cert, open(sys.argv[3], "rb") as key:
        credentials = grpc.ssl_server_credentials([(key.read(), cert.read())])
    port = server.add_secure_port("127.0.0.1:0", credentials)
else:
    port = server.add_insecure_port("127.0.0.1:0")
server.start()
print(port, flush=True)
# The test closes our stdin when it is done, or by ending.
threading.Thread(target=lambda: (sys.stdin.read(), server.stop(0)), daemon=True).start()
server.wait_for_termination()
