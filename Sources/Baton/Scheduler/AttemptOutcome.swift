/// An attempt succeeded with an output, or failed (permanently: no retry can help), or returned a
/// graph to run in the node's place (`{"nodes": {...}, "output": TEMPLATE}`, in the same form as the output).
public enum AttemptOutcome<Output: Sendable>: Sendable {
    case succeeded(Output)
    case spawned(Output)
    case failed(message: String, permanent: Bool)
}

extension AttemptOutcome: Equatable where Output: Equatable {}
