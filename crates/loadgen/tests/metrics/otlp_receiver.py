"""An OTLP/HTTP metrics receiver for loadgen's tests: each POST's body
decoded with the official opentelemetry-proto package and written, with
the request's path and headers, as one JSON line to OUT.

    python otlp_receiver.py OUT

Prints its port on the first line once it listens.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)

OUT = sys.argv[1]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = ExportMetricsServiceRequest()
        request.ParseFromString(body)
        line = {
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "request": MessageToDict(request, preserving_proto_field_name=True),
        }
        with open(OUT, "a") as out:
            out.write(json.dumps(line) + "\n")
        answer = ExportMetricsServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
