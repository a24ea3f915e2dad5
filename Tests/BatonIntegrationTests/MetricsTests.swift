import Baton
import Foundation
import Testing

extension Integration {
    /// `--metrics`: a coordinator and a worker serve Prometheus text, liveness and readiness over
    /// HTTP, and a run with a known outcome moves their counters by exactly its numbers.
    @Suite("metrics and health endpoints", .serialized)
    @MainActor
    struct MetricsTests {
        /// Five nodes: three succeed, one fails after a retry (two attempts), one is cancelled by it.
        static let graph: JSON = [
            "name": "metrics-counted",
            "nodes": [
                "a": ["procedure": "baton.echo", "input": ["x": 1]],
                "b": ["procedure": "baton.add", "input": ["values": [1, 2]]],
                "c": ["procedure": "baton.fail", "input": ["message": "counted failure"], "retry": ["attempts": 2]],
                "d": ["procedure": "baton.echo", "input": ["$from": "c"]],
                "e": ["procedure": "baton.echo", "after": ["a"]],
            ],
        ]

        @Test("a run moves the coordinator's and the worker's counters by exactly its numbers")
        func countersMove() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let coordinatorPort = HTTPProbe.freePort()
            let workerPort = HTTPProbe.freePort()
            try cluster.start(["coordinator", "--metrics", "127.0.0.1:\(coordinatorPort)"], name: "coordinator")
            try cluster.start(
                ["worker", "--demo", "--concurrency", "4", "--heartbeat", "0.5", "--metrics", "127.0.0.1:\(workerPort)"], name: "worker")
            try TestCluster.waitUntil(30, "both services to be ready") {
                HTTPProbe.get(port: coordinatorPort, "/readyz")?.status == 200 && HTTPProbe.get(port: workerPort, "/readyz")?.status == 200
            }
            #expect(HTTPProbe.get(port: coordinatorPort, "/readyz")?.body.hasPrefix("ready: owning\n") == true)
            #expect(HTTPProbe.get(port: coordinatorPort, "/readyz")?.body.contains("postgresql: connected") == true)
            #expect(HTTPProbe.get(port: workerPort, "/readyz")?.body.contains("rabbitmq: connected") == true)
            #expect(HTTPProbe.get(port: coordinatorPort, "/healthz")?.status == 200)
            #expect(HTTPProbe.get(port: workerPort, "/healthz")?.status == 200)
            #expect(HTTPProbe.get(port: workerPort, "/nothing-here")?.status == 404)
            try TestCluster.waitUntil(10, "the coordinator to own every partition") {
                HTTPProbe.sample(HTTPProbe.get(port: coordinatorPort, "/metrics")?.body ?? "", "baton_coordinator_partitions", "") == 64
            }
            // A second coordinator takes half the partitions, and gives them back when it stops.
            let secondPort = HTTPProbe.freePort()
            let second = try cluster.start(["coordinator", "--metrics", "127.0.0.1:\(secondPort)"], name: "second")
            try TestCluster.waitUntil(30, "the coordinators to share the partitions") {
                HTTPProbe.sample(HTTPProbe.get(port: secondPort, "/metrics")?.body ?? "", "baton_coordinator_partitions", "") == 32
                    && HTTPProbe.sample(HTTPProbe.get(port: coordinatorPort, "/metrics")?.body ?? "", "baton_coordinator_partitions", "") == 32
            }
            #expect(HTTPProbe.get(port: secondPort, "/readyz")?.body.hasPrefix("ready: owning\n") == true)
            let shared = try #require(HTTPProbe.get(port: coordinatorPort, "/metrics")).body
            #expect(HTTPProbe.sample(shared, "baton_coordinator_partition_changes_total", #"change="released""#) == 32, "\(shared)")
            second.terminate()
            second.waitUntilExit()
            try TestCluster.waitUntil(30, "the first coordinator to take them back") {
                HTTPProbe.sample(HTTPProbe.get(port: coordinatorPort, "/metrics")?.body ?? "", "baton_coordinator_partitions", "") == 64
            }
            let back = try #require(HTTPProbe.get(port: coordinatorPort, "/metrics")).body
            #expect(HTTPProbe.sample(back, "baton_coordinator_partition_changes_total", #"change="acquired""#) == 64 + 32, "\(back)")

            let before = try #require(HTTPProbe.get(port: coordinatorPort, "/metrics")).body
            let workerBefore = try #require(HTTPProbe.get(port: workerPort, "/metrics")).body
            let store = try TestCluster.store()
            defer { store.close() }
            let run = try TestCluster.submit(Self.graph)
            #expect(try TestCluster.waitForRun(run, store: store) == "failed")

            // The run's end is committed before it is visible, and counted right after the commit.
            var after = ""
            try TestCluster.waitUntil(10, "the run to be counted") {
                after = HTTPProbe.get(port: coordinatorPort, "/metrics")?.body ?? ""
                return HTTPProbe.sample(after, "baton_runs_ended_total", #"state="failed""#)
                    > HTTPProbe.sample(before, "baton_runs_ended_total", #"state="failed""#)
            }
            func moved(_ name: String, _ labels: String = "", in text: String, from base: String) -> Double {
                HTTPProbe.sample(text, name, labels) - HTTPProbe.sample(base, name, labels)
            }
            #expect(moved("baton_runs_ended_total", #"state="failed""#, in: after, from: before) == 1)
            #expect(moved("baton_runs_ended_total", #"state="succeeded""#, in: after, from: before) == 0)
            #expect(moved("baton_nodes_ended_total", #"state="succeeded""#, in: after, from: before) == 3)
            #expect(moved("baton_nodes_ended_total", #"state="failed""#, in: after, from: before) == 1)
            #expect(moved("baton_nodes_ended_total", #"state="cancelled""#, in: after, from: before) == 1)
            #expect(moved("baton_nodes_ended_total", #"state="skipped""#, in: after, from: before) == 0)
            #expect(moved("baton_run_duration_seconds_count", in: after, from: before) == 1)
            #expect(moved("baton_dead_letters_total", in: after, from: before) == 0)
            #expect(moved("baton_coordinator_commit_seconds_count", in: after, from: before) >= 1)
            #expect(moved("baton_coordinator_batch_commands_count", in: after, from: before) >= 1)
            // The queues' depths are read every 5 s: every procedure the worker serves gets a gauge.
            try TestCluster.waitUntil(15, "the task queues' depths") {
                after = HTTPProbe.get(port: coordinatorPort, "/metrics")?.body ?? ""
                return after.contains(#"baton_tasks_waiting{pool="default",procedure="baton.fail"} 0"#)
            }

            // Each result is posted after the procedure's duration was recorded: five attempts ran.
            var worker = ""
            try TestCluster.waitUntil(10, "the worker's histograms and slots") {
                worker = HTTPProbe.get(port: workerPort, "/metrics")?.body ?? ""
                return HTTPProbe.sample(worker, "baton_task_queued_to_started_seconds_count", #"pool="default""#)
                    - HTTPProbe.sample(workerBefore, "baton_task_queued_to_started_seconds_count", #"pool="default""#) == 5
            }
            #expect(moved("baton_procedure_duration_seconds_count", #"procedure="baton.echo""#, in: worker, from: workerBefore) == 2)
            #expect(moved("baton_procedure_duration_seconds_count", #"procedure="baton.add""#, in: worker, from: workerBefore) == 1)
            #expect(moved("baton_procedure_duration_seconds_count", #"procedure="baton.fail""#, in: worker, from: workerBefore) == 2)
            #expect(moved("baton_task_redeliveries_total", in: worker, from: workerBefore) == 0)
            #expect(HTTPProbe.sample(worker, "baton_worker_slots") == 4)
            #expect(HTTPProbe.sample(worker, "baton_worker_slots_busy") == 0)
        }

        @Test("worker processes of --processes serve on PORT, PORT+1, ...")
        func processesGetTheirOwnPorts() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            // Two adjacent free ports: try a few kernel choices.
            var base = 0
            for _ in 0..<20 {
                let port = HTTPProbe.freePort()
                if port < 65_535, HTTPProbe.get(port: port + 1, "/") == nil {
                    base = port
                    break
                }
            }
            try #require(base > 0)
            try cluster.start(["worker", "--demo", "--processes", "2", "--metrics", "127.0.0.1:\(base)"], name: "workers")
            try TestCluster.waitUntil(30, "both worker processes to be ready") {
                HTTPProbe.get(port: base, "/readyz")?.status == 200 && HTTPProbe.get(port: base + 1, "/readyz")?.status == 200
            }
            #expect(HTTPProbe.get(port: base + 1, "/metrics")?.body.contains("baton_worker_slots 4") == true)
        }

        @Test("a port already in use ends the service with one line naming --metrics and the address")
        func portInUse() throws {
            let (fd, port) = HTTPProbe.occupiedPort()
            defer { close(fd) }
            let result = try TestCluster.cli(["worker", "--metrics", "127.0.0.1:\(port)"], environment: ["BATON_LOG_LEVEL": "error"])
            #expect(result.status == 1, "exit \(result.status): \(result.stderr)")
            #expect(result.stderr.contains("baton: --metrics 127.0.0.1:\(port): cannot serve: "), "\(result.stderr)")
            #expect(result.stderr.contains("Address already in use"), "\(result.stderr)")
        }

        struct BadAddress: CustomStringConvertible, Sendable {
            let arguments: [String]
            let message: String
            var description: String { arguments.joined(separator: " ") }
        }

        nonisolated static let badAddresses: [BadAddress] = [
            BadAddress(arguments: ["coordinator", "--metrics", "9464"], message: "--metrics: '9464' is not HOST:PORT: the port is missing"),
            BadAddress(arguments: ["coordinator", "--metrics", ":9464"], message: "--metrics: ':9464' is not HOST:PORT: the host is missing"),
            BadAddress(
                arguments: ["worker", "--metrics", "127.0.0.1:http"],
                message: "--metrics: '127.0.0.1:http' is not HOST:PORT: the port is not a number"),
            BadAddress(arguments: ["worker", "--metrics", "127.0.0.1:70000"], message: "the port must be from 1 to 65535"),
            BadAddress(arguments: ["worker", "--metrics", "127.0.0.1:0"], message: "the port must be from 1 to 65535"),
            BadAddress(arguments: ["coordinator", "--metrics", "::1:9464"], message: "write an IPv6 host in brackets, as [::1]:9464"),
            BadAddress(arguments: ["coordinator", "--metrics", "local host:9464"], message: "the host has characters"),
            BadAddress(
                arguments: ["worker", "--processes", "3", "--metrics", "127.0.0.1:65534"],
                message: "--metrics: port 65534 + 2 for --processes 3 is past 65535"),
        ]

        @Test("a bad --metrics address is refused with one line and exit 2", arguments: badAddresses)
        func badAddress(_ c: BadAddress) throws {
            let result = try TestCluster.cli(c.arguments)
            #expect(result.status == 2, "exit \(result.status): \(result.stderr)")
            #expect(result.stderr.contains(c.message), "stderr: \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
        }
    }
}
