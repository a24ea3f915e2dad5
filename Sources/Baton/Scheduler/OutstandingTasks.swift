/// A run's nodes with a task out (queued, or running on a worker), with the bytes of their inputs:
/// the dispatch window bounds both (`RunState+Window`).
struct OutstandingTasks: Sendable, ExpressibleByArrayLiteral {
    private var sizes: [String: Int] = [:]
    /// About the bytes of the inputs of the tasks out (`JSON.estimatedBytes`).
    private(set) var bytes = 0

    init(arrayLiteral keys: String...) { for key in keys { insert(key, bytes: 0) } }

    var count: Int { sizes.count }

    /// `key` has a task out whose input is about `bytes` long (counted once, however often told); nil
    /// keeps the size already counted for it (its input is no longer held), or counts none.
    mutating func insert(_ key: String, bytes size: Int?) {
        guard let size else {
            if sizes[key] == nil { sizes[key] = 0 }
            return
        }
        if let old = sizes.updateValue(size, forKey: key) { bytes -= old }
        bytes += size
    }

    /// The bytes counted for `key`'s task, if it has one out.
    func bytes(of key: String) -> Int? { sizes[key] }

    mutating func remove(_ key: String) {
        if let old = sizes.removeValue(forKey: key) { bytes -= old }
    }
}
