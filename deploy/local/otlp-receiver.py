#!/usr/bin/env python3
"""A tiny OTLP/HTTP trace receiver: decodes each ExportTraceServiceRequest (protobuf) sent to
/v1/traces and appends its spans to a file as JSON lines, one span a line. For the tracing
integration test and for trying `--otlp-endpoint` without a collector.

    python3 deploy/local/otlp-receiver.py --out spans.jsonl [--port 4318] [--port-file FILE]

Needs `opentelemetry-proto` from PyPI (`python3 -m pip install opentelemetry-proto`).
With --port 0 it takes a free port and writes it to --port-file once it listens."""
import argparse
import gzip
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


def value(v):
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [value(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in v.kvlist_value.values}
    if kind == "bytes_value":
        return v.bytes_value.hex()
    return getattr(v, kind) if kind else None


def attributes(kvs):
    return {kv.key: value(kv.value) for kv in kvs}


def spans(request):
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "service": resource.get("service.name"),
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": span.kind,
                    "start": span.start_time_unix_nano,
                    "end": span.end_time_unix_nano,
                    "attributes": attributes(span.attributes),
                    "status": {"code": span.status.code, "message": span.status.message},
                    "events": [{"name": e.name, "attributes": attributes(e.attributes)} for e in span.events],
                }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="file the spans are appended to, as JSON lines")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4318)
    parser.add_argument("--port-file", help="where to write the port it listens on")
    args = parser.parse_args()
    # A parent may have blocked these (a test process does): SIGTERM and ^C must stop the receiver.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path != "/v1/traces":
                self.send_response(404)
                self.end_headers()
                return
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            with lock, open(args.out, "a") as out:
                for span in spans(request):
                    out.write(json.dumps(span) + "\n")
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format, *arguments):
            pass

    server = ThreadingHTTPServer((args.host, args.port), Handler)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        os.replace(args.port_file + ".tmp", args.port_file)
    print(f"otlp-receiver: listening on http://{args.host}:{server.server_address[1]}, spans to {args.out}", file=sys.stderr)
    server.serve_forever()


if __name__ == "__main__":
    main()
