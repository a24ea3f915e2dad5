import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// The worker processes themselves: supervision and graceful shutdown.
    @Suite("worker processes", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct WorkerProcessTests {
        @Test("--processes 2 restarts a child killed with SIGKILL, and SIGTERM stops them all")
        func supervisorRestartsAndStops() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let supervisor = try cluster.start(["worker", "--processes", "2", "--concurrency", "2"], name: "supervised")
            let store = try TestCluster.store()
            defer { store.close() }

            func liveChildren() throws -> [WorkerRow] {
                try store.liveWorkers(within: 30).filter { row in
                    kill(pid_t(row.pid), 0) == 0 && parentPID(of: pid_t(row.pid)) == supervisor.processIdentifier
                }
            }
            var first: [WorkerRow] = []
            try TestCluster.waitUntil(30, "two supervised workers heartbeating") {
                first = try liveChildren()
                return first.count == 2
            }
            let victim = first[0]
            kill(pid_t(victim.pid), SIGKILL)
            try TestCluster.waitUntil(30, "a replacement worker") {
                let now = try liveChildren()
                return now.count == 2 && !now.contains { $0.id == victim.id }
            }
            let children = try liveChildren().map { pid_t($0.pid) }

            supervisor.terminate()
            try TestCluster.waitUntil(40, "the supervisor to exit") { !supervisor.isRunning }
            #expect(supervisor.terminationStatus == 0)
            #expect(children.allSatisfy { kill($0, 0) != 0 }, "children still alive: \(children)")
        }

        @Test("SIGTERM lets a running procedure finish and report before the worker exits 0")
        func gracefulShutdownDrains() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let worker = try cluster.startWorker(concurrency: 2)
            let graph: JSON = ["name": "drain", "nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 1.5]]]]
            let runID = try TestCluster.submit(graph)
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "the nap to be running") { try store.nodes(ofRun: runID).first?.status == "running" }

            worker.terminate()
            try TestCluster.waitUntil(30, "the worker to exit") { !worker.isRunning }
            #expect(worker.terminationStatus == 0)
            // The attempt finished on that worker and was reported before it exited: no other worker exists.
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 10) == "succeeded")
            #expect(try store.nodes(ofRun: runID).first?.attempts == 1)
        }
    }
}

/// The parent process id of `pid`, from /proc.
func parentPID(of pid: pid_t) -> pid_t? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return fields.count > 1 ? pid_t(fields[1]) : nil
}
