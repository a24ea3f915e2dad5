extension SchedulerCommand {
    /// About the bytes this command adds to a commit's statement (the values it writes, estimated
    /// without serializing them; `PendingBatch.chunks` bounds a statement by this). A node's change
    /// counts its input and output, and its error and detail, which its event row repeats.
    public var estimatedBytes: Int {
        switch self {
        case .runStatus(_, let error): return 200 + 2 * (error?.utf8.count ?? 0)
        case let .node(change):
            var total = 300 + 2 * (change.error?.utf8.count ?? 0)
            if let input = change.input { total += input.estimatedBytes }
            if let output = change.output { total += output.estimatedBytes }
            if let detail = change.detail { total += JSON.object(detail).estimatedBytes }
            if let bookkeeping = change.bookkeeping { total += bookkeeping.estimatedBytes }
            return total
        case .dispatch, .cancelTasks, .acquire, .release: return 0  // published or netted as holds, not written as they are
        case let .event(key, kind, detail): return 150 + key.utf8.count + kind.rawValue.utf8.count + detail.estimatedBytes
        case let .expand(_, fragment, _):
            // The fragment goes on the parent's row and each child gets a row with its template.
            var total = 300
            for key in fragment.order { total += 300 + key.utf8.count + (fragment.nodes[key].map { $0.input.written.estimatedBytes } ?? 0) }
            return 2 * total
        case .prune(let parent): return 100 + parent.utf8.count
        case let .cacheStore(_, lookup, output): return 200 + lookup.input.utf8.count + output.estimatedBytes
        }
    }
}

extension SchedulerCommand {
    /// True for a command a commit's piece may begin with: a node's change, an event or a run's
    /// status. What follows a change (its dispatch, children, prune, cache row, hold) stays in its piece.
    public var startsPiece: Bool {
        switch self {
        case .node, .event, .runStatus: return true
        case .dispatch, .cancelTasks, .expand, .prune, .acquire, .release, .cacheStore: return false
        }
    }
}
