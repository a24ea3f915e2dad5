extension Schema {
    /// Migration 20, reports bound to their attempt (docs/operations.md, "Attempt tokens"): the token
    /// of a node's current attempt, written in the commit that queues it. Nothing shows it: not the
    /// dashboard, the CLI nor the API, which show run ids, keys and attempts.
    static let attemptTokens: [String] = [
        "alter table baton.nodes add column if not exists attempt_token text"
    ]
}
