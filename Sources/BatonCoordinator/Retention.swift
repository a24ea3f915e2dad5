import Baton
import BatonStore
import Foundation
import Logging
import ServiceLifecycle

/// Bounded history from a coordinator: every `interval` seconds it creates the history's time
/// partitions for now and the periods ahead where missing, and with `baton coordinator --retention D`
/// prunes finished runs older than `olderThan` (and cache rows older than `cacheOlderThan`), on a
/// connection and thread of its own, so the scheduling loop never waits for it. Coordinators take
/// turns through the pruner's advisory lock; a database error is logged and tried again at the next turn.
public struct Retention: Service {
    public let databaseURL: String
    /// Nil: partitions only, no pruning.
    public let olderThan: Double?
    public let cacheOlderThan: Double?
    public let logger: Logger

    public init(databaseURL: String, olderThan: Double?, cacheOlderThan: Double?, logger: Logger) {
        self.databaseURL = databaseURL
        self.olderThan = olderThan
        self.cacheOlderThan = cacheOlderThan
        self.logger = logger
    }

    /// Seconds between turns: a tenth of the retention, from 10 s to 10 minutes (10 minutes without retention).
    public var interval: Double { min(600, max(10, (olderThan ?? 6000) / 10)) }

    public func run() async throws {
        try await ThreadService.run(name: "baton-retention") { loop($0) }
    }

    private func loop(_ stop: StopSignal) {
        var store: Store?
        repeat {
            do {
                if store == nil { store = try Store(url: databaseURL) }
                try store!.ensureHistoryPartitions()
                guard let olderThan else { continue }
                let report = try store!.prune(olderThan: olderThan, cacheOlderThan: cacheOlderThan, dryRun: false)
                if !report.isEmpty {
                    logger.info(
                        "retention: removed \(report.runs) run(s) with \(report.nodes) node(s) and \(report.events) event(s), \(report.cacheRows) cache row(s); dropped partitions \(report.partitions)"
                    )
                }
            } catch {
                logger.warning("retention: \(error); trying again in \(Int(interval)) s")
                store?.close()
                store = nil
            }
        } while !stop.wait(interval)
        store?.close()
    }
}
