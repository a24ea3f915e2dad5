import Baton
import Foundation

extension NodeChange {
    /// The event `Store.apply` writes for this change (the store twin writes the same): its kind, when
    /// it happened (nil: at the commit), and its detail, with `dueText` writing the due time. A NUL
    /// in the error is dropped: a text column cannot hold one.
    public func eventRecord(dueText: (Date) -> String) -> (kind: EventKind, at: Date?, detail: JSON) {
        var detail: [(key: String, value: JSON)] = [("attempt", .int(Int64(attempt)))]
        if let error {
            let text = error.replacingOccurrences(of: "\u{0}", with: "")
            detail.append((status == .skipped || status == .cancelled ? "reason" : "error", .string(text)))
        }
        if let errorType { detail.append(("error_type", .string(errorType))) }
        if let worker { detail.append(("worker", .string(worker))) }
        if let dueAt { detail.append(("due_at", .string(dueText(dueAt)))) }
        if let more = self.detail { detail += more.members }
        switch status {
        case .running: return (eventKind, startedAt, .object(JSONObject(detail)))
        // An attempt that ended, into a retry's or repeat's wait too, is recorded when it ended, not at the
        // commit: its due time counts from then.
        default: return (eventKind, status.isTerminal || status == .waiting ? finishedAt : nil, .object(JSONObject(detail)))
        }
    }
}
