/// One line of `baton.audit`: who wrote what, from where, written in the same transaction as the write.
public struct AuditEntry: Sendable, Equatable {
    /// The token's name, nil for a write made with the database's own login (the CLI).
    public var tokenName: String?
    /// What was done, such as `token.create`, `run.submit`, `run.cancel`.
    public var action: String
    /// What it was done to: a run id, a token's or a schedule's name.
    public var target: String?
    /// Where it came from: the client's address, or `cli (OS user NAME)`.
    public var source: String?

    public init(tokenName: String? = nil, action: String, target: String? = nil, source: String? = nil) {
        self.tokenName = tokenName
        self.action = action
        self.target = target
        self.source = source
    }
}
