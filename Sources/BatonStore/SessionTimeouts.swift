/// Server-side time limits a store's session sets when it connects: the longest one statement may run
/// (`statement_timeout`) and the longest a transaction may sit idle (`idle_in_transaction_session_timeout`).
/// A limit the URL already sets (`options=-c statement_timeout=…`) wins over these.
public struct SessionTimeouts: Sendable, Equatable {
    /// Seconds one statement may run before the server cancels it (SQLSTATE 57014, retried as transient).
    public var statement: Double
    /// Seconds a transaction may stay idle before the server ends the session (the store connects again).
    public var idleInTransaction: Double

    public init(statement: Double, idleInTransaction: Double) {
        self.statement = statement
        self.idleInTransaction = idleInTransaction
    }

    /// The coordinator's: its statements are short (a commit batch, a load of one partition's runs, a
    /// lease renewal) and take well under a second on a healthy server, so a minute means something
    /// is holding them (a lock, a stalled server); cancelled, they are retried with back-off.
    public static let coordinator = SessionTimeouts(statement: 60, idleInTransaction: 60)

    /// The `set` statements that apply these limits, leaving out any the connection's `options` already sets.
    func statements(urlOptions: String?) -> [String] {
        let options = urlOptions ?? ""
        var result: [String] = []
        if !options.contains("statement_timeout") { result.append("set statement_timeout = '\(Self.milliseconds(statement))ms'") }
        if !options.contains("idle_in_transaction_session_timeout") {
            result.append("set idle_in_transaction_session_timeout = '\(Self.milliseconds(idleInTransaction))ms'")
        }
        return result
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        seconds.isFinite ? Int(min(max(seconds, 0.001), 2_000_000) * 1000) : 0
    }
}
