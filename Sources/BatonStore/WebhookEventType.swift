/// What a webhook can be told (`baton webhook add --events`), each from `baton.events` kinds
/// (docs/schema.md, "Webhooks"): a run's end, a node's final failure or retry, a signal node waiting.
public enum WebhookEventType: String, Sendable, CaseIterable, Comparable {
    case runSucceeded = "run.succeeded"
    case runFailed = "run.failed"
    case runCancelled = "run.cancelled"
    case nodeFailed = "node.failed"
    case nodeRetrying = "node.retrying"
    case signalWaiting = "signal.waiting"

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Every kind in `text` (comma-separated, `run.*` for the three run kinds, `all` for every one), or
    /// the one-line problem naming the first unknown kind.
    public static func parseList(_ text: String) -> Result<[WebhookEventType], WebhookProblem> {
        var kinds: Set<WebhookEventType> = []
        let words = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        for word in words {
            switch word {
            case "all": kinds.formUnion(allCases)
            case "run.*": kinds.formUnion([.runSucceeded, .runFailed, .runCancelled])
            case "node.*": kinds.formUnion([.nodeFailed, .nodeRetrying])
            default:
                guard let kind = WebhookEventType(rawValue: word) else {
                    let known = allCases.map(\.rawValue).joined(separator: ", ")
                    return .failure(WebhookProblem("unknown event kind '\(word)' (known: \(known), run.*, node.*, all)"))
                }
                kinds.insert(kind)
            }
        }
        return .success(kinds.sorted())
    }
}
