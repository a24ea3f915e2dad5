import Baton
import BatonStore
import Foundation

extension MemoryStore {
    /// Every run, in the order submitted.
    public var runs: [MemoryRunRow] { tables.runs.values.sorted { $0.sequence < $1.sequence } }

    /// The run `id`, or nil if there is none.
    public func run(_ id: String) -> MemoryRunRow? { tables.runs[id] }

    /// A run's node rows, by position (then key).
    public func nodes(ofRun id: String) -> [MemoryNodeRow] {
        (tables.nodes[id] ?? [:]).values.sorted { ($0.position, $0.key) < ($1.position, $1.key) }
    }

    /// The row of node `key` of run `id`, or nil if there is none.
    public func node(_ key: String, ofRun id: String) -> MemoryNodeRow? { tables.nodes[id]?[key] }

    /// A run's events, in the order written.
    public func events(ofRun id: String) -> [MemoryEventRow] { tables.events[id] ?? [] }

    /// Every event, in the order written.
    public var events: [MemoryEventRow] { tables.events.values.flatMap { $0 }.sorted { $0.id < $1.id } }

    /// The cache table, in the order written.
    public var cacheRows: [MemoryCacheRow] { tables.cache }

    /// The admission table (mutex, concurrency and cache requests), by seq.
    public var holds: [AdmissionTable.Entry] { tables.holds.values.sorted { $0.seq < $1.seq } }

    /// Every request, handled or not, by id.
    public var requests: [MemoryRequestRow] { tables.requests }

    /// Whether request `id` has been handled.
    public func requestHandled(_ id: Int) -> Bool { tables.requests.first { $0.id == id }?.handledAt != nil }

    /// The workers' rows (stopped workers removed), by id.
    public var workers: [MemoryWorkerRow] { tables.workers.values.sorted { $0.id < $1.id } }

    /// The highest dispatch batch the broker confirmed (`baton.publications.confirmed_through`).
    public func confirmedThrough(partition: Int) -> Int64 { tables.partitions[partition].confirmedThrough }

}
