import Foundation

/// A run id from a URL: a full UUID, lowercased. Prefixes are for the CLI; links carry whole ids.
public struct RunID: Sendable, Equatable, CustomStringConvertible {
    public let value: String

    public init(parsing text: String) throws(DashboardError) {
        guard text.count == 36, UUID(uuidString: text) != nil else {
            throw .badRequest("'\(text.prefix(80))' is not a run id (a UUID)")
        }
        value = text.lowercased()
    }

    public var description: String { value }
}
