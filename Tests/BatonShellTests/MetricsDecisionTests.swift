import Baton
import BatonHTTP
import Foundation
import Prometheus
import Testing

@testable import BatonCoordinator

/// The decisions behind `--metrics`, without services: the address, the probes' answers and what a committed batch counts.
@Suite("metrics and health decisions")
struct MetricsDecisionTests {
    @Test("listen addresses parse, with IPv6 in brackets")
    func addresses() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:9464", flag: "--metrics") == ListenAddress(host: "127.0.0.1", port: 9464))
        #expect(try ListenAddress(parsing: "[::1]:80", flag: "--metrics") == ListenAddress(host: "::1", port: 80))
        #expect(try ListenAddress(parsing: "metrics.local:1", flag: "--x").description == "metrics.local:1")
        #expect(ListenAddress(host: "::1", port: 9).description == "[::1]:9")
        #expect(ListenAddress(host: "0.0.0.0", port: 9464).shifted(by: 2).port == 9466)
        for bad in ["", "9464", ":1", "h:", "h:-1", "h:65536", "[::1:9", "[]:9", "a b:9", "h:9x"] {
            #expect(throws: ListenAddressError.self, "\(bad)") { try ListenAddress(parsing: bad, flag: "--metrics") }
        }
    }

    @Test("liveness fails only when the loop stalls past the limit, not in a wait it announced")
    func liveness() {
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        let health = ServiceHealth(now: t0)
        health.set(role: .owning)
        #expect(health.snapshot().liveness(now: t0.addingTimeInterval(59)).status == 200)
        #expect(health.snapshot().liveness(now: t0.addingTimeInterval(61)).status == 503)
        #expect(health.snapshot().liveness(now: t0.addingTimeInterval(61)).body.hasPrefix("stalled: "))
        health.beat(now: t0, quietFor: 120)
        #expect(health.snapshot().liveness(now: t0.addingTimeInterval(170)).status == 200)
        #expect(health.snapshot().liveness(now: t0.addingTimeInterval(190)).status == 503)
    }

    @Test("readiness: leader and standby are ready and say which; a lost connection or draining is not")
    func readiness() {
        let health = ServiceHealth()
        #expect(health.snapshot().readiness().status == 503)  // starting, nothing connected
        health.set("postgresql", connected: true)
        health.set(role: .standby)
        #expect(health.snapshot().readiness() == HealthVerdict(status: 200, body: "ready: standby\npostgresql: connected\n"))
        health.set("rabbitmq", connected: true)
        health.set(role: .owning)
        #expect(health.snapshot().readiness().body == "ready: owning\npostgresql: connected\nrabbitmq: connected\n")
        health.set("rabbitmq", connected: false)
        #expect(health.snapshot().readiness().status == 503)
        health.forget("rabbitmq")
        health.set(role: .draining)
        #expect(health.snapshot().readiness() == HealthVerdict(status: 503, body: "not ready: draining\npostgresql: connected\n"))
    }

    @Test("a committed batch counts the runs and nodes that ended, by state")
    func tally() {
        let commands: [SchedulerCommand] = [
            .runStatus(.running, error: nil),
            .node(NodeChange(key: "a", status: .queued, attempt: 1)),
            .node(NodeChange(key: "a", status: .succeeded, attempt: 1)),
            .node(NodeChange(key: "b", status: .failed, attempt: 2)),
            .node(NodeChange(key: "c", status: .cancelled, attempt: 0)),
            .node(NodeChange(key: "d", status: .skipped, attempt: 0)),
            .node(NodeChange(key: "e", status: .waiting, attempt: 1)),
            .runStatus(.failed, error: "node 'b' failed"),
        ]
        let tally = BatchTally([("r1", commands), ("r2", [.node(NodeChange(key: "x", status: .succeeded, attempt: 1))])])
        #expect(tally.commands == 9)
        #expect(tally.runsEnded == [.failed: 1])
        #expect(tally.nodesEnded == [.succeeded: 2, .failed: 1, .cancelled: 1, .skipped: 1])
        #expect(tally.runsStarted == ["r1"])
        #expect(tally.runsFinished == ["r1"])
    }

    @Test("coordinator metrics land in their own registry, and two coordinators' do not mix")
    func registries() {
        let one = PrometheusCollectorRegistry()
        let two = PrometheusCollectorRegistry()
        let metrics = CoordinatorMetrics(factory: BatonPrometheus.factory(registry: one))
        _ = CoordinatorMetrics(factory: BatonPrometheus.factory(registry: two))
        let start = Date()
        metrics.committed(BatchTally([("r", [.runStatus(.running, error: nil)])]), seconds: 0.01, now: start)
        metrics.committed(
            BatchTally([("r", [.node(NodeChange(key: "a", status: .succeeded, attempt: 1)), .runStatus(.succeeded, error: nil)])]),
            seconds: 0.02, now: start.addingTimeInterval(3))
        let text = one.emitToString()
        #expect(text.contains(#"baton_runs_ended_total{state="succeeded"} 1"#))
        #expect(text.contains(#"baton_nodes_ended_total{state="succeeded"} 1"#))
        #expect(text.contains("baton_run_duration_seconds_count 1"))
        #expect(text.contains("baton_run_duration_seconds_sum 3.0"))
        #expect(text.contains("baton_coordinator_batch_commands_count 2"))
        #expect(two.emitToString().contains(#"baton_runs_ended_total{state="succeeded"} 0"#))
    }
}
