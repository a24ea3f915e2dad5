/// Why a webhook cannot be stored as given: one line naming what is wrong (the CLI's error, the API's 422).
public struct WebhookProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
