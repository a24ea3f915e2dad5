/// What becomes of a delivery after an attempt (`DeliveryPolicy` decides it).
public enum DeliveryStep: Sendable, Equatable {
    /// A 2xx came back: done.
    case delivered
    /// Try again this many seconds from now.
    case retry(after: Double)
    /// Past the give-up age (24 h after the event): stop, `failed`.
    case giveUp

    /// The `state` column's value after this step.
    public var state: String {
        switch self {
        case .delivered: "delivered"
        case .retry: "pending"
        case .giveUp: "failed"
        }
    }
}
