import Foundation
import Logging
import Testing

@testable import BatonCommandLineCore

/// The lean worker's service runner: a signal or a service's end shuts the services down the last
/// first, each after the one after it has returned; the first error comes back.
@Suite("GracefulServices: how a worker process stops", .serialized)
struct GracefulServicesTests {
    @Test(.timeLimit(.minutes(1)))
    func aSignalShutsTheServicesDownTheLastFirstEachAfterTheNextHasReturned() async throws {
        let journal = Journal()
        let services = (0..<3).map { RecordingService(name: "s\($0)", journal: journal) }
        async let running: Void = GracefulServices.run(services, signals: [SIGUSR2], logger: Logger(label: "test"))
        try await journal.waitFor(["run s0", "run s1", "run s2"])
        kill(getpid(), SIGUSR2)
        try await running
        #expect(
            journal.lines.suffix(6) == ["shut down s2", "ended s2", "shut down s1", "ended s1", "shut down s0", "ended s0"],
            "\(journal.lines)")
    }

    @Test(.timeLimit(.minutes(1)))
    func aServiceThatThrowsShutsTheOthersDownAndItsErrorComesBack() async throws {
        let journal = Journal()
        let failing = RecordingService(name: "bad", journal: journal, failsAfter: 0.05)
        let services = [RecordingService(name: "s0", journal: journal), failing, RecordingService(name: "s2", journal: journal)]
        await #expect(throws: ServiceFailed.self) {
            try await GracefulServices.run(services, signals: [SIGUSR2], logger: Logger(label: "test"))
        }
        #expect(journal.lines.filter { $0.hasPrefix("shut down") } == ["shut down s2", "shut down bad", "shut down s0"], "\(journal.lines)")
        #expect(journal.lines.last == "ended s0", "\(journal.lines)")
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellingTheCallerShutsTheServicesDown() async throws {
        let journal = Journal()
        let services = (0..<2).map { RecordingService(name: "s\($0)", journal: journal) }
        let task = Task { try await GracefulServices.run(services, signals: [SIGUSR2], logger: Logger(label: "test")) }
        try await journal.waitFor(["run s0", "run s1"])
        task.cancel()
        try await task.value
        #expect(journal.lines.suffix(4) == ["shut down s1", "ended s1", "shut down s0", "ended s0"], "\(journal.lines)")
    }
}

private struct ServiceFailed: Error {}

/// What the services did, in order.
private final class Journal: @unchecked Sendable {
    // Safe: `entries` is only touched with `lock` held.
    private let lock = NSLock()
    private var entries: [String] = []

    var lines: [String] { lock.withLock { entries } }

    func add(_ line: String) { lock.withLock { entries.append(line) } }

    /// Waits, with a deadline, until every one of `expected` is in the journal.
    func waitFor(_ expected: [String], seconds: Double = 10) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !Set(expected).isSubset(of: lines) {
            guard Date() < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Runs until shut down (a short pause, as a drain would take), or throws after `failsAfter` seconds.
/// It waits without spinning: a cancelled `Task.sleep` returns at once, and a loop around it would hold a
/// cooperative thread, so two such services on a 2-core machine would starve the task that shuts them down.
private struct RecordingService: GracefulService {
    let name: String
    let journal: Journal
    var failsAfter: Double?
    private let stop = Latch()

    init(name: String, journal: Journal, failsAfter: Double? = nil) {
        self.name = name
        self.journal = journal
        self.failsAfter = failsAfter
    }

    func run() async throws {
        journal.add("run \(name)")
        defer { journal.add("ended \(name)") }
        if let failsAfter {
            try? await Task.sleep(for: .seconds(failsAfter))
            throw ServiceFailed()
        }
        await stop.wait()
        try? await Task.sleep(for: .milliseconds(20))
    }

    func shutDown() async {
        journal.add("shut down \(name)")
        stop.set()
    }
}
