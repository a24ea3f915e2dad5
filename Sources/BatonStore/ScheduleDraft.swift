import Baton
import Foundation

/// A schedule as asked for, before it is stored: `baton schedule add`'s options and `POST /schedules`'
/// body alike. Its settings are checked here, in one place, so the CLI and the API refuse the same
/// input in the same one-line words (each names the setting as its caller spells it).
public struct ScheduleDraft: Sendable, Equatable {
    /// How a setting is named in a refusal: as a CLI option (`--catch-up`) or a body member (`catch_up`).
    public enum Spelling: Sendable {
        case options, members

        func name(_ member: String) -> String {
            switch self {
            case .options: "--" + member.replacingOccurrences(of: "_", with: "-")
            case .members: member
            }
        }
    }

    /// The settings once checked, ready to be stored with a graph.
    public struct Checked: Sendable, Equatable {
        public let name: String
        public let cron: String?
        public let timezone: String
        public let everySeconds: Double?
        public let overlap: OverlapRule
        public let catchUp: CatchUpRule

        /// The row to store: `document` is the graph as written (its input defaults unresolved, so each
        /// firing merges `input` over them again), named `graphName` when it has no name of its own.
        public func row(document: JSON, graphName: String, input: JSON?) -> ScheduleRow {
            var graph = document
            if case var .object(fields) = document, fields["name"] == nil {
                fields["name"] = .string(graphName)
                graph = .object(fields)
            }
            return ScheduleRow(
                name: name, graph: graph, input: input, cron: cron, everySeconds: everySeconds, timezone: timezone, overlap: overlap,
                catchUp: catchUp)
        }
    }

    public var name: String
    public var cron: String?
    public var timezone: String?
    public var every: String?
    public var overlap: String
    public var catchUp: String

    public init(name: String, cron: String?, timezone: String?, every: String?, overlap: String = "skip", catchUp: String = "last") {
        self.name = name
        self.cron = cron
        self.timezone = timezone
        self.every = every
        self.overlap = overlap
        self.catchUp = catchUp
    }

    /// The checked settings, or the first thing wrong with them in one line.
    public func check(_ spelling: Spelling) -> Result<Checked, ScheduleInputError> {
        func fail(_ text: String) -> Result<Checked, ScheduleInputError> { .failure(ScheduleInputError(text)) }
        let (cronName, everyName, zoneName) = (spelling.name("cron"), spelling.name("every"), spelling.name("timezone"))
        if let problem = ScheduleName.problem(name) { return fail(problem) }
        guard let overlapRule = OverlapRule(rawValue: overlap) else {
            return fail("\(spelling.name("overlap")) must be skip, queue or allow, got '\(overlap)'")
        }
        guard let catchUpRule = CatchUpRule(rawValue: catchUp) else {
            return fail("\(spelling.name("catch_up")) must be none, last or all, got '\(catchUp)'")
        }
        var everySeconds: Double?
        switch (cron, every) {
        case (nil, nil): return fail("give \(cronName) \"EXPR\" or \(everyName) DURATION")
        case (.some, .some): return fail("give \(cronName) or \(everyName), not both")
        case let (.some(text), nil):
            do { _ = try CronExpression(parsing: text) } catch { return fail("\(cronName): \(error)") }
            if let timezone, timezone.isEmpty || TimeZone(identifier: timezone) == nil {
                return fail("\(zoneName) '\(timezone)' is not an IANA time zone (such as Europe/Berlin or UTC)")
            }
        case let (nil, .some(text)):
            if timezone != nil { return fail("\(zoneName) only makes sense with \(cronName)") }
            switch DurationText.parse(.string(text)) {
            case let .success(seconds) where seconds >= 1: everySeconds = seconds
            case .success: return fail("\(everyName) '\(text)' is shorter than the least period, 1s")
            case let .failure(problem): return fail("\(everyName): \(problem)")
            }
        }
        return .success(
            Checked(
                name: name, cron: cron, timezone: cron == nil ? "UTC" : (timezone ?? "UTC"), everySeconds: everySeconds, overlap: overlapRule,
                catchUp: catchUpRule))
    }
}
