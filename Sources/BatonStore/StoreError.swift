/// A problem a user can cause or see when talking to the store.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// `submit` with an idempotency key that an earlier run holds, with a different graph.
public struct IdempotencyKeyConflict: Error, Sendable, CustomStringConvertible {
    public let key: String
    /// The run that has the key.
    public let runID: String
    public var description: String { "idempotency key '\(key)' already belongs to run \(runID), which has a different graph" }
}
