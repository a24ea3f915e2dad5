extension Schema {
    /// Migration 17, signals (docs/schema.md, "baton.requests"): a `baton signal` is a request of kind
    /// `signal` naming its node, with the value it delivers (jsonb `null` when sent without data; SQL
    /// null for the other kinds). The coordinator applies it; a value that comes before its node waits
    /// is kept in the node's `scheduler` bookkeeping (`signal`) until it does.
    static let signals: [String] = [
        "alter table baton.requests add column if not exists value jsonb",
        // The refusal of a second signal looks for one not yet applied, per node.
        """
        create index if not exists requests_open_signal_idx on baton.requests (run_id, node_key)
        where handled_at is null and kind = 'signal'
        """,
    ]
}
