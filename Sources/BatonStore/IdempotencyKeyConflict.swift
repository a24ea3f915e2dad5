/// `submit` with an idempotency key that an earlier run holds, with a different graph or input.
public struct IdempotencyKeyConflict: Error, Sendable, CustomStringConvertible {
    public let key: String
    /// The run that has the key.
    public let runID: String
    public var description: String { "idempotency key '\(key)' already belongs to run \(runID), which has a different graph or input" }
}
