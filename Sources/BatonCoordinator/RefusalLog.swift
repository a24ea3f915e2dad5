import Baton
import Foundation

/// When to log refused reports (`ReportCheck`): the first at once, then at most one line per
/// `interval` with how many were refused since, by reason, so a flood of forged or old workers'
/// reports cannot flood the log. A value: the loop asks it, and logs the line it returns.
struct RefusalLog {
    static let interval: Double = 10
    private var counts: [ReportCheck.Refusal: Int] = [:]
    private var lastLine: Date?

    /// Counts one refusal of `what`; returns the line to log now, if one is due.
    mutating func refused(_ reason: ReportCheck.Refusal, what: String, at now: Date) -> String? {
        counts[reason, default: 0] += 1
        if let lastLine, now.timeIntervalSince(lastLine) < Self.interval { return nil }
        lastLine = now
        let total = counts.values.reduce(0, +)
        let reasons = counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        counts = [:]
        return
            "refused \(total) report(s) without their attempt's token (\(reasons)), the last a \(what); they changed nothing"
            + (reason == .missingToken
                ? " (a worker from before attempt tokens? upgrade it, or run the coordinators with --accept-untokened-reports meanwhile)" : "")
    }
}
