/// What a `map` does when a child fails.
public enum MapFailure: String, Sendable {
    /// The first failure fails the map and cancels the other children (the default).
    case failFast = "fail-fast"
    /// The map succeeds with `{"ok": output}` or `{"error": message}` per element.
    case collect
}
