import Baton
import BatonSeams
import Foundation

/// Which runs `baton cancel|retry --where` act on: the terms of one or more `--where` values, each
/// `KEY=VALUE`, separated by commas; every term must hold. Keys: `status`, `name` (a glob),
/// `since` (submitted within a duration), `procedure` and `error_type` (a node of the run has them;
/// both given: the same node), `schedule` (fired or triggered by that schedule).
public struct RunFilter: Sendable, Equatable {
    public var status: RunStatus?
    public var name: NameGlob?
    /// Submitted at most this many seconds ago (database clock).
    public var since: Double?
    public var procedure: String?
    public var errorType: String?
    public var schedule: String?
    /// The terms as given, joined by commas (for messages and the audit trail).
    public var text: String

    /// The keys a term may have.
    public static let keys = ["status", "name", "since", "procedure", "error_type", "schedule"]

    /// The filter, or one line naming the term that is wrong. No term at all is refused.
    public static func parse(_ values: [String]) -> Result<RunFilter, RunFilterProblem> {
        let terms = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let usage = "one or more of \(keys.map { $0 + "=" }.joined(separator: ", ")) separated by commas"
        if terms.allSatisfy(\.isEmpty) { return .failure(RunFilterProblem("--where is empty: give \(usage)")) }
        var filter = RunFilter(text: terms.joined(separator: ","))
        var seen: Set<String> = []
        for term in terms {
            guard !term.isEmpty else { return .failure(RunFilterProblem("--where: an empty term in '\(filter.text)' (a comma too many)")) }
            guard let equals = term.firstIndex(of: "=") else {
                return .failure(RunFilterProblem("--where: '\(term)' is not KEY=VALUE (\(usage), such as status=failed)"))
            }
            let key = String(term[..<equals])
            let value = String(term[term.index(after: equals)...])
            guard keys.contains(key) else {
                return .failure(RunFilterProblem("--where: unknown term '\(key)' in '\(term)' (known: \(keys.joined(separator: ", ")))"))
            }
            guard seen.insert(key).inserted else { return .failure(RunFilterProblem("--where: \(key)= is given twice; give each term once")) }
            guard !value.isEmpty else { return .failure(RunFilterProblem("--where: \(key)= has no value")) }
            guard value.count <= 200, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                return .failure(RunFilterProblem("--where: \(key)= must be at most 200 characters with no control character"))
            }
            switch key {
            case "status":
                guard let status = RunStatus(rawValue: value) else {
                    let known = RunStatus.allCases.map(\.rawValue).joined(separator: ", ")
                    return .failure(RunFilterProblem("--where: status '\(value)' is not one of \(known)"))
                }
                filter.status = status
            case "name":
                switch NameGlob.parse(value) {
                case .success(let glob): filter.name = glob
                case .failure(let problem): return .failure(RunFilterProblem("--where: name: \(problem.description)"))
                }
            case "since":
                guard let seconds = seconds(value) else {
                    return .failure(
                        RunFilterProblem("--where: since: '\(value)' is not a duration (a number with s, m, h, d or w, such as 2h or 7d)"))
                }
                filter.since = seconds
            case "procedure": filter.procedure = value
            case "error_type": filter.errorType = value
            default: filter.schedule = value
            }
        }
        return .success(filter)
    }

    /// Nil if `action` can act on runs this filter matches; else why it matches none it could.
    public func problem(for action: BulkAction) -> RunFilterProblem? {
        guard let status, !action.statuses.contains(status) else { return nil }
        let allowed = action.statuses.map(\.rawValue).joined(separator: " or ")
        return RunFilterProblem("--where: status=\(status.rawValue) matches no run \(action.rawValue) takes: it takes only \(allowed) runs")
    }

    /// `30s`, `15m`, `2h`, `7d`, `1.5w`: whole or decimal, at least a second, at most 100 years.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = text.last, let scale = units[unit] else { return nil }
        let number = text.dropLast()
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), number.filter({ $0 == "." }).count <= 1,
            let value = Double(number)
        else { return nil }
        let total = value * scale
        return total >= 1 && total <= 100 * 366 * 86_400 ? total : nil
    }

    /// The filter as an SQL condition on `baton.runs r`, its parameters numbered from `$first`.
    public func condition(first: Int) -> (sql: String, parameters: [String?]) {
        var parts: [String] = []
        var parameters: [String?] = []
        func next(_ value: String) -> String {
            parameters.append(value)
            return "$\(first + parameters.count - 1)"
        }
        if let status { parts.append("r.status = \(next(status.rawValue))") }
        if let name { parts.append("r.name like \(next(name.like))") }
        if let since { parts.append("r.submitted_at >= now() - make_interval(secs => \(next(String(since)))::float8)") }
        if procedure != nil || errorType != nil {
            var node = ["n.run_id = r.id", "n.run_submitted_at = r.submitted_at"]
            if let procedure { node.append("n.procedure = \(next(procedure))") }
            if let errorType { node.append("n.error_type = \(next(errorType))") }
            parts.append("exists (select 1 from baton.nodes n where \(node.joined(separator: " and ")))")
        }
        if let schedule {
            parts.append(
                "exists (select 1 from baton.idempotency_keys k where k.run_id = r.id and k.run_submitted_at = r.submitted_at"
                    + " and starts_with(k.key, \(next(ScheduleRow.keyPrefix(schedule)))))")
        }
        return (parts.isEmpty ? "true" : parts.joined(separator: " and "), parameters)
    }
}

/// Why a `--where` filter cannot be used: one line naming the term (the CLI's exit 2, the API's 422).
public struct RunFilterProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What `baton cancel|retry --where` asks of every run it matches, and which runs can take it.
public enum BulkAction: String, Sendable, CaseIterable {
    case cancel, retry

    /// The statuses of the runs it acts on: what has not ended (cancel), what failed or was cancelled (retry).
    public var statuses: [RunStatus] { self == .cancel ? [.pending, .running] : [.failed, .cancelled] }

    var kind: RunRequest.Kind { self == .cancel ? .cancel : .retry }
}
