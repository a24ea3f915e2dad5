/// An attempt succeeded with an output, or failed (permanently: no retry can help).
public enum AttemptOutcome<Output: Sendable>: Sendable {
    case succeeded(Output)
    case failed(message: String, permanent: Bool)
}

extension AttemptOutcome: Equatable where Output: Equatable {}
