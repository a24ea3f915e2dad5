import Foundation

/// What an API token may do (docs/api.md, "Scopes"). `admin` implies every other scope; the others
/// are independent of each other.
public enum AccessScope: String, Sendable, CaseIterable, Codable, Comparable {
    /// Every GET: runs, nodes, events, schedules, procedures, workers, coordinators.
    case read
    /// Starting work: runs, validate, events for triggers.
    case submit
    /// Acting on work: cancel, retry, signal, pause, resume and trigger schedules.
    case operate
    /// Configuration: schedules, tokens, webhooks, triggers, the audit trail.
    case admin

    public static func < (a: AccessScope, b: AccessScope) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Whether a token holding `scopes` may act with `self`.
    public func isGranted(by scopes: Set<AccessScope>) -> Bool { scopes.contains(self) || scopes.contains(.admin) }

    /// The scopes of a comma-separated list such as `read,submit`, or one line saying which word is not a scope.
    public static func parseList(_ text: String) -> Result<Set<AccessScope>, ListError> {
        let words = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .failure(ListError("no scope given (use read, submit, operate or admin, comma-separated)"))
        }
        var scopes: Set<AccessScope> = []
        for word in words {
            guard let scope = AccessScope(rawValue: word.lowercased()) else {
                return .failure(ListError("'\(word)' is not a scope (use read, submit, operate or admin, comma-separated)"))
            }
            scopes.insert(scope)
        }
        return .success(scopes)
    }

    /// What is wrong with a list of scopes, in one line.
    public struct ListError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
