/// What `Store.prune` removed (or, on a dry run, would remove).
public struct PruneReport: Sendable, Equatable {
    /// Finished runs, with everything that belongs to them.
    public var runs = 0
    public var nodes = 0
    public var events = 0
    /// Time partitions dropped whole (their suffixes, as in `baton.history_partitions`), every run in them
    /// being finished before the cutoff; their runs, nodes and events are counted above too.
    public var partitions: [String] = []
    /// Rows of the output cache older than the cache's retention.
    public var cacheRows = 0
    /// Another pruner (a coordinator's `--retention`, another `baton prune`) was at work: nothing was done.
    public var busy = false

    public init() {}

    mutating func add(runs: Int, nodes: Int, events: Int) {
        self.runs += runs
        self.nodes += nodes
        self.events += events
    }

    /// Nothing was (or would be) removed.
    public var isEmpty: Bool { runs == 0 && cacheRows == 0 && partitions.isEmpty }
}
