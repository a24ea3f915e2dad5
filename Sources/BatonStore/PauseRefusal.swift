/// Why `Store.pause` or `Store.resume` refused, in one line naming what is wrong. Nothing was stored.
public struct PauseRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    /// The run does not exist (rather than a bad name or a run that has ended).
    public let missing: Bool
    public init(_ description: String, missing: Bool = false) {
        self.description = description
        self.missing = missing
    }
}
