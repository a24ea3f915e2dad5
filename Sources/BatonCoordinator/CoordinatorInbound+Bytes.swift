import BatonAMQP

extension CoordinatorInbound {
    /// The size of the message's body, which a batch's byte bound counts.
    var bodyBytes: Int {
        switch self {
        case let .report(body, _), let .heartbeat(body, _), let .deadLetter(body, _, _, _), let .unrouted(body, _, _): return body.count
        }
    }
}
