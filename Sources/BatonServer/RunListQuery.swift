import Baton
import BatonStore
import Foundation

/// The query of `GET /api/v1/runs`: its filters, page size and cursor, each checked (a 400 names
/// the parameter and what it takes).
struct RunListQuery: Sendable {
    var status: RunStatus?
    var name: String?
    var schedule: String?
    /// Seconds since the epoch.
    var since: Double?
    var limit = 20
    var after: RunPageMark?

    init(_ parameters: [String: String], now: Date = Date()) throws {
        if let text = parameters["status"] {
            guard let status = RunStatus(rawValue: text) else {
                throw APIError.badRequest("status: '\(text.prefix(40))' is not a run status (pending, running, succeeded, failed, cancelled)")
            }
            self.status = status
        }
        if let text = parameters["name"] {
            guard !text.isEmpty, text.count <= 200 else { throw APIError.badRequest("name: must be 1 to 200 characters") }
            name = text
        }
        if let text = parameters["schedule"] {
            if let problem = ScheduleName.problem(text) { throw APIError.badRequest("schedule: \(problem)") }
            schedule = text
        }
        if let text = parameters["since"] { since = try Self.since(text, now: now) }
        limit = try APIHandlers.integer(parameters["limit"], name: "limit", range: 1...1000, default: 20)
        after = try PageCursor.run(parameters["cursor"])
    }

    /// An RFC 3339 time or an age (`15m`, `24h`, `7d`, `2w`; one over 100 years counts as 100) before
    /// `now`, as seconds since the epoch.
    static func since(_ text: String, now: Date) throws -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let unit = text.last.flatMap({ units[$0] }), text.count <= 7, let count = Int(text.dropLast()), count > 0,
            text.dropLast().allSatisfy(\.isNumber)
        {
            // An older age is every run: PostgreSQL's timestamps end before 999999w (19,000 years) ago,
            // which the pattern allows (589634w once came back as the database's 503).
            return now.timeIntervalSince1970 - min(Double(count) * unit, maxAge)
        }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        }
        throw APIError.badRequest("since: '\(text.prefix(40))' is not an RFC 3339 time (2026-11-27T08:00:00Z) or an age (15m, 24h, 7d, 2w)")
    }

    /// The longest age `since` counts: 100 years (before any run).
    static let maxAge: Double = 100 * 366 * 86_400
}
