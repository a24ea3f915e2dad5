import Foundation

/// `baton.delay`: a durable timer the coordinator runs itself; it holds no worker.
/// Input `{"seconds": N}` or `{"until": ISO8601}`; output `{"fired_at": ISO8601}`.
public enum DelayProcedure {
    public static let name = "baton.delay"

    /// Its shape for type checking: one of `seconds` or `until` (which one is checked when it starts).
    public static let schema = ProcedureSchema(
        input: .object([SchemaProperty("seconds", .number, required: false), SchemaProperty("until", .string, required: false)]),
        output: .object([SchemaProperty("fired_at", .string)]))

    /// When a delay with this input, started at `now`, fires.
    public static func dueDate(from input: JSON, now: Date) -> Result<Date, ProcedureFailure> {
        guard case let .object(o) = input, o.count == 1 else {
            return .failure(ProcedureFailure("baton.delay takes {\"seconds\": N} or {\"until\": \"2026-01-01T00:00:00Z\"}", permanent: true))
        }
        if let s = o["seconds"] {
            guard let seconds = s.numberValue, seconds.isFinite, seconds >= 0, seconds <= 366 * 24 * 3600 else {
                return .failure(ProcedureFailure("baton.delay: seconds must be a number from 0 to 31622400, found \(s)", permanent: true))
            }
            return .success(now.addingTimeInterval(seconds))
        }
        if let u = o["until"] {
            guard let text = u.stringValue, let date = parseDate(text) else {
                return .failure(
                    ProcedureFailure("baton.delay: until must be an ISO 8601 time such as \"2026-01-01T12:00:00Z\", found \(u)", permanent: true))
            }
            return .success(date)
        }
        return .failure(ProcedureFailure("baton.delay takes {\"seconds\": N} or {\"until\": \"2026-01-01T00:00:00Z\"}", permanent: true))
    }

    public static func output(firedAt: Date) -> JSON {
        ["fired_at": .string(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(firedAt))]
    }

    static func parseDate(_ text: String) -> Date? {
        if let d = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return d }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
