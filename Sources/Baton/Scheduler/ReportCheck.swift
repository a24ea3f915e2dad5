/// Whether a worker's report may reach its run's scheduler: a report of a node's current attempt
/// must carry that attempt's token (`AttemptToken`), or it is refused and changes nothing. A pure
/// decision, taken by the coordinator for each report before `RunState.handle` (one dictionary
/// read and, for a report of the current attempt, one 32-digit parse).
///
/// Reports of other attempts are let through: the scheduler ignores them as stale whatever they
/// say. An attempt queued without a token (by a coordinator from before tokens, or by the
/// in-process engine) accepts any report, as it always did.
public struct ReportCheck: Sendable {
    /// Why a report was refused: the `reason` of `baton_reports_refused_total`.
    public enum Refusal: String, Sendable, CaseIterable {
        /// The report carried no token (a worker from before tokens, or someone who is no worker).
        case missingToken = "missing_token"
        /// The report carried a token, not its attempt's.
        case wrongToken = "wrong_token"
    }

    /// Accept reports with no token at all (`--accept-untokened-reports`), for the window of a
    /// rolling upgrade in which workers from before tokens still run; a wrong token is refused anyway.
    public var acceptUntokened: Bool

    public init(acceptUntokened: Bool = false) { self.acceptUntokened = acceptUntokened }

    /// Nil if the report may go on to the scheduler, else why it is refused.
    public func refusal(of report: ReportMessage, in run: RunState) -> Refusal? {
        refusal(key: report.key, attempt: report.attempt, token: report.attemptToken, in: run)
    }

    /// Nil if a message about `key`'s `attempt` carrying `token` may go on to the scheduler, else why it is refused.
    public func refusal(key: String, attempt: Int, token: String?, in run: RunState) -> Refusal? {
        guard let node = run.nodes[key], node.attempt == attempt, let expected = node.attemptToken else { return nil }
        guard let token else { return acceptUntokened ? nil : .missingToken }
        return AttemptToken(text: token) == expected ? nil : .wrongToken
    }
}
