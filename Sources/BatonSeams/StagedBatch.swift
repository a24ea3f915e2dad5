import Baton
import Foundation

/// What one commit writes, staged once from the scheduler's commands for both stores: node rows
/// (each node's changes merged, `StagedNodeRow`), children pruned, events, run statuses and cache
/// entries. A value with no I/O: `Store.apply` turns it into one SQL statement, `MemoryStore` into
/// its tables, so the two cannot fold a batch differently.
public struct StagedBatch: Sendable {
    /// The children of `prefix` (`parent/`) of a run to delete, unless this batch inserts them.
    public struct Prune: Sendable, Equatable {
        public let runID: String
        public let prefix: String

        public init(runID: String, prefix: String) {
            self.runID = runID
            self.prefix = prefix
        }
    }

    /// One event to append, in the order of the commands.
    public struct Event: Sendable, Equatable {
        public let runID: String
        /// Nil for a run's event.
        public let node: String?
        public let kind: EventKind
        public let at: Date
        public let detail: JSON
    }

    /// A run's status as the batch leaves it (its last `.runStatus`).
    public struct RunChange: Sendable, Equatable {
        public let runID: String
        public let status: RunStatus
        public let error: String?

        public init(runID: String, status: RunStatus, error: String?) {
            self.runID = runID
            self.status = status
            self.error = error
        }
    }

    /// An output to store in the cache.
    public struct CacheEntry: Sendable, Equatable {
        public let runID: String
        public let node: String
        public let lookup: CacheLookup
        public let output: JSON

        public init(runID: String, node: String, lookup: CacheLookup, output: JSON) {
            self.runID = runID
            self.node = node
            self.lookup = lookup
            self.output = output
        }
    }

    /// The node rows, in the order the batch first touched them; children inserted and updates alike.
    public private(set) var rows: [StagedNodeRow] = []
    public private(set) var prunes: [Prune] = []
    public private(set) var events: [Event] = []
    /// One per run whose status changed, in the order of their first change.
    public private(set) var runs: [RunChange] = []
    public private(set) var cacheEntries: [CacheEntry] = []
    /// The batch dispatches tasks (its queued rows get a batch number).
    public private(set) var queues = false

    /// Nothing to write for the scheduler's commands (heartbeats, holds and the like aside).
    public var isEmpty: Bool { !queues && rows.isEmpty && prunes.isEmpty && runs.isEmpty && events.isEmpty && cacheEntries.isEmpty }

    /// Stages `batch` at `now` (which stamps what has no time of its own); `dueText` writes a due
    /// time into an event's detail. A fragment that cannot be written fails the batch with a
    /// `StoreError` naming the run and node: storing null instead would make its children vanish.
    public init(_ batch: [(runID: String, commands: [SchedulerCommand])], now: Date, dueText: (Date) -> String) throws {
        var rows: [String: StagedNodeRow] = [:]  // "run\u{0}key" -> merged row
        var rowOrder: [String] = []
        var runIndex: [String: Int] = [:]
        var fragments: [String: JSON] = [:]  // "run\u{0}parent" -> the fragment column's new value
        func dropChildren(_ runID: String, of parent: String) {
            let prefix = runID + "\u{0}" + parent + "/"
            if rowOrder.contains(where: { $0.hasPrefix(prefix) }) {
                for id in rowOrder where id.hasPrefix(prefix) { rows[id] = nil }
                rowOrder.removeAll { $0.hasPrefix(prefix) }
            }
            prunes.append(Prune(runID: runID, prefix: parent + "/"))
        }
        for (runID, commands) in batch {
            for command in commands {
                switch command {
                case let .expand(parent, fragment, position):
                    dropChildren(runID, of: parent)
                    do { fragments[runID + "\u{0}" + parent] = try JSON(encoding: fragment) } catch {
                        throw StoreError("run \(runID): the children of node '\(parent)' cannot be stored: \(error)")
                    }
                    for (offset, key) in fragment.order.enumerated() {
                        let id = runID + "\u{0}" + key
                        rowOrder.append(id)
                        rows[id] = StagedNodeRow(child: key, of: fragment.nodes[key]!, runID: runID, position: position + offset)
                    }
                case let .prune(parent):
                    dropChildren(runID, of: parent)
                    fragments[runID + "\u{0}" + parent] = .null
                case let .node(change):
                    let id = runID + "\u{0}" + change.key
                    if rows[id] == nil {
                        rowOrder.append(id)
                        rows[id] = StagedNodeRow(runID: runID, key: change.key)
                    }
                    rows[id]!.merge(change, now: now)
                    let (kind, at, detail) = change.eventRecord(dueText: dueText)
                    events.append(Event(runID: runID, node: change.key, kind: kind, at: at ?? now, detail: detail))
                case let .runStatus(status, error):
                    let change = RunChange(runID: runID, status: status, error: error)
                    if let i = runIndex[runID] {
                        runs[i] = change
                    } else {
                        runIndex[runID] = runs.count
                        runs.append(change)
                    }
                    var detail: JSON = ["status": .string(status.rawValue)]
                    if let error { detail = ["status": .string(status.rawValue), "error": .string(error)] }
                    events.append(Event(runID: runID, node: nil, kind: EventKind(run: status), at: now, detail: detail))
                case let .event(key, kind, detail):
                    events.append(Event(runID: runID, node: key, kind: kind, at: now, detail: detail))
                case let .cacheStore(key, lookup, output):
                    cacheEntries.append(CacheEntry(runID: runID, node: key, lookup: lookup, output: output))
                case .dispatch:
                    queues = true
                case .cancelTasks, .acquire, .release:
                    break  // holds come to the stores as `HoldChange`s, netted by the caller
                }
            }
        }
        for (id, fragment) in fragments {
            // The scheduler changes the parent in the same event, so its row is in this batch.
            guard rows[id] != nil else { continue }
            rows[id]!.setFragment = true
            rows[id]!.fragment = fragment
        }
        self.rows = rowOrder.map { rows[$0]! }
    }
}
