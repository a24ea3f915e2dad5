import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// `--otlp-endpoint`: `baton submit`, a coordinator and a worker (three processes) export one
    /// trace per run to a real OTLP/HTTP receiver (deploy/local/otlp-receiver.py, decoding with
    /// PyPI's `opentelemetry-proto`), with the spans' parents right across the processes.
    @Suite("traces across processes", .serialized)
    @MainActor
    struct TracingTests {
        /// A diamond (a → b, c → d) whose `c` fails once and succeeds on its retry; `a` opens a span of its own.
        static let graph: JSON = [
            "name": "traced-diamond",
            "nodes": [
                "a": ["procedure": "test.traced", "input": ["step": "a"]],
                "b": ["procedure": "baton.echo", "input": ["a": ["$from": "a"]]],
                "c": [
                    "procedure": "baton.fail", "input": ["message": "flaky once", "succeed_on_attempt": 2], "retry": ["attempts": 2],
                    "after": ["a"],
                ],
                "d": ["procedure": "baton.echo", "input": ["b": ["$from": "b"], "c": ["$from": "c"]]],
            ],
        ]

        @Test("a diamond with a retried node is one trace whose spans have the right parents across three processes")
        func oneTraceAcrossProcesses() throws {
            let receiver = try OTLPReceiver()
            defer { receiver.stop() }
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            // Spans go out every 200 ms rather than every 5 s.
            let environment = ["OTEL_BSP_SCHEDULE_DELAY": "200"]
            try cluster.start(["coordinator", "--otlp-endpoint", receiver.endpoint], name: "coordinator", environment: environment)
            try cluster.start(
                ["--concurrency", "4", "--heartbeat", "0.5"], name: "worker",
                environment: environment.merging([TracingTests.endpointVariable: receiver.endpoint]) { $1 },
                executable: TestWorkerRestarter.executablePath)
            let submitted = try TestCluster.cli([
                "submit", try GraphFixtures.write(Self.graph), "--otlp-endpoint", receiver.endpoint, "--allow-unknown-procedures",
            ])
            try #require(submitted.status == 0, "submit: \(submitted.stderr)")
            let runID = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store) == "succeeded")

            // 1 submit + 1 run + 5 attempts + 5 executions + 1 procedure's own span, in the submit's trace
            // (the coordinator may trace other tests' leftover runs too: their traces are others).
            var all: [ReceivedSpan] = []
            var spans: [ReceivedSpan] = []
            try TestCluster.waitUntil(30, "the thirteen spans of the run") {
                all = try receiver.spans()
                let trace = all.first { $0.name == "baton submit" && $0.string("baton.run_id") == runID }?.traceID
                spans = all.filter { $0.traceID == trace }
                return spans.count >= 13 && spans.contains { $0.name == "run" }
            }
            #expect(spans.count == 13, "\(spans.map(\.summary))")
            #expect(all.filter { $0.string("baton.run_id") == runID }.allSatisfy { $0.traceID == spans[0].traceID }, "one trace per run")
            #expect(Set(spans.map(\.service)) == ["baton-cli", "baton-coordinator", "baton-worker"])

            let submit = try #require(spans.first { $0.name == "baton submit" })
            #expect(submit.service == "baton-cli" && submit.parentID.isEmpty && submit.string("baton.run_id") == runID)
            let run = try #require(spans.first { $0.name == "run" })
            #expect(run.service == "baton-coordinator" && run.parentID == submit.spanID)
            #expect(run.string("baton.run_id") == runID && run.string("baton.outcome") == "succeeded")
            #expect(run.start <= run.end && spans.allSatisfy { $0.end <= run.end || $0.service == "baton-cli" })

            let attempts = spans.filter { $0.service == "baton-coordinator" && $0.name.hasPrefix("node ") }
            let executions = spans.filter { $0.service == "baton-worker" && $0.name.hasPrefix("execute ") }
            #expect(
                attempts.map { "\($0.string("baton.node") ?? "?")#\($0.int("baton.attempt") ?? 0)" }.sorted() == ["a#1", "b#1", "c#1", "c#2", "d#1"])
            for attempt in attempts {
                #expect(attempt.parentID == run.spanID, "\(attempt.summary)")
                #expect(attempt.string("baton.run_id") == runID && attempt.string("baton.procedure") != nil, "\(attempt.summary)")
                // Its execution on the worker is its child, with the same node and attempt.
                let children = executions.filter { $0.parentID == attempt.spanID }
                #expect(children.count == 1, "\(attempt.summary): \(children.map(\.summary))")
                if let execution = children.first {
                    #expect(execution.string("baton.node") == attempt.string("baton.node"))
                    #expect(execution.int("baton.attempt") == attempt.int("baton.attempt"))
                    #expect(execution.name == "execute \(attempt.string("baton.procedure") ?? "?")")
                    #expect(execution.string("baton.worker")?.isEmpty == false)
                    #expect(execution.start >= attempt.start && execution.end <= attempt.end + 1_000_000_000, "\(execution.summary)")
                }
            }
            // The retried attempt: its error recorded on the coordinator's span and the worker's.
            let failed = try #require(attempts.first { $0.string("baton.node") == "c" && $0.int("baton.attempt") == 1 })
            #expect(failed.string("baton.outcome") == "retrying")
            #expect(failed.statusCode == 2 && failed.statusMessage == "flaky once", "\(failed.summary)")
            #expect(failed.events.contains("exception"))
            let failedRun = try #require(executions.first { $0.parentID == failed.spanID })
            #expect(failedRun.string("baton.outcome") == "failed" && failedRun.statusCode == 2 && failedRun.events.contains("exception"))
            let retried = try #require(attempts.first { $0.string("baton.node") == "c" && $0.int("baton.attempt") == 2 })
            #expect(retried.string("baton.outcome") == "succeeded" && retried.statusCode != 2)
            #expect(attempts.filter { $0.string("baton.outcome") == "succeeded" }.allSatisfy { $0.string("baton.worker")?.isEmpty == false })

            // The procedure's own span nests under its execution; the line it logged there names the trace and span.
            let own = try #require(spans.first { $0.name == "test.traced step" })
            let tracedRun = try #require(executions.first { $0.name == "execute test.traced" })
            #expect(own.parentID == tracedRun.spanID && own.string("test.node") == "a")
            let logged = cluster.log("worker").split(separator: "\n").first { $0.contains("inside the procedure's own span") }
            #expect(logged?.contains("trace_id=\(run.traceID)") == true && logged?.contains("span_id=\(own.spanID)") == true, "\(logged ?? "")")
            // The coordinator's line for the run's end names its trace and span too.
            let ended = cluster.log("coordinator").split(separator: "\n").first { $0.contains("run \(runID) succeeded") }
            #expect(ended?.contains("trace_id=\(run.traceID)") == true && ended?.contains("span_id=\(run.spanID)") == true, "\(ended ?? "")")
        }

        @Test("a bad --otlp-endpoint or OTEL_EXPORTER_OTLP_ENDPOINT is refused in one line, exit 2, and nothing is stored")
        func badEndpoints() throws {
            let before = try TestCluster.sql().query("select count(*) as n from baton.runs").int(0, "n")
            let file = try GraphFixtures.write(Self.graph)
            let cases: [(arguments: [String], environment: [String: String], names: String)] = [
                (["submit", file, "--otlp-endpoint", "ftp://127.0.0.1:4318"], [:], "--otlp-endpoint: 'ftp://127.0.0.1:4318'"),
                (["submit", file, "--otlp-endpoint", "127.0.0.1:4318"], [:], "--otlp-endpoint: '127.0.0.1:4318'"),
                (["submit", file], [Self.endpointVariable: "http://"], "$OTEL_EXPORTER_OTLP_ENDPOINT: 'http://'"),
                (["coordinator", "--otlp-endpoint", "http://host:4318/?x=1"], [:], "--otlp-endpoint: 'http://host:4318/?x=1'"),
                (["worker", "--demo"], [Self.endpointVariable: "collector:4318"], "$OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318'"),
            ]
            for given in cases {
                let result = try TestCluster.cli(given.arguments, environment: given.environment)
                #expect(result.status == 2, "\(given.arguments): \(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(
                    lines.count == 1 && lines[0].contains(given.names) && lines[0].contains("is not an http:// or https:// URL"), "\(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
            #expect(try TestCluster.sql().query("select count(*) as n from baton.runs").int(0, "n") == before)
        }

        static let endpointVariable = "OTEL_EXPORTER_OTLP_ENDPOINT"
    }
}

/// One span as deploy/local/otlp-receiver.py wrote it.
struct ReceivedSpan {
    let json: JSON
    var name: String { json["name"]?.stringValue ?? "" }
    var service: String { json["service"]?.stringValue ?? "" }
    var traceID: String { json["trace_id"]?.stringValue ?? "" }
    var spanID: String { json["span_id"]?.stringValue ?? "" }
    var parentID: String { json["parent_span_id"]?.stringValue ?? "" }
    var start: Int { json["start"]?.intValue ?? 0 }
    var end: Int { json["end"]?.intValue ?? 0 }
    var statusCode: Int { json["status"]?["code"]?.intValue ?? 0 }
    var statusMessage: String { json["status"]?["message"]?.stringValue ?? "" }
    var events: [String] { json["events"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [] }
    func string(_ key: String) -> String? { json["attributes"]?[key]?.stringValue }
    func int(_ key: String) -> Int? { json["attributes"]?[key]?.intValue }
    var summary: String { "\(service) \(name) \(spanID) ← \(parentID) \(json["attributes"]?.serialized() ?? "")" }
}

/// deploy/local/otlp-receiver.py in a child process, on a free port, writing spans to a file of its own.
final class OTLPReceiver {
    let process: Process
    let output: URL
    let endpoint: String

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let output = directory.appendingPathComponent("spans.jsonl")
        let portFile = directory.appendingPathComponent("port")
        let check = try ChildProcess.run("/usr/bin/env", ["python3", "-c", "import opentelemetry.proto"])
        try #require(
            check.status == 0, "the OTLP receiver needs PyPI's opentelemetry-proto (deploy/local/test.sh installs it): \(check.stderr)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", ProjectScript.path("otlp-receiver.py"), "--port", "0", "--out", output.path, "--port-file", portFile.path,
        ]
        try process.run()
        var port = ""
        try TestCluster.waitUntil(20, "the OTLP receiver to listen") {
            port = (try? String(contentsOf: portFile, encoding: .utf8)) ?? ""
            return !port.isEmpty || !process.isRunning
        }
        try #require(process.isRunning, "the OTLP receiver exited")
        self.process = process
        self.output = output
        endpoint = "http://127.0.0.1:\(port)"
    }

    /// Every span received so far.
    func spans() throws -> [ReceivedSpan] {
        guard let text = try? String(contentsOf: output, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { ReceivedSpan(json: try JSONParser.parse(String($0))) }
    }

    /// SIGKILL: a child of the test process starts with SIGTERM blocked.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
