import Baton

/// How a node's state looks in every format: fill, border and text colors.
public struct StatusStyle: Sendable, Equatable {
    public let fill: String
    public let stroke: String
    public let text: String

    /// A node of a graph file (no state).
    public static let plain = StatusStyle(fill: "#f8fafc", stroke: "#475569", text: "#0f172a")

    /// The style of `status`: succeeded green, failed red, cancelled grey, skipped light,
    /// running blue, queued and waiting amber, pending (and ready) white.
    public static func of(_ status: NodeStatus?) -> StatusStyle {
        switch status {
        case nil: return plain
        case .succeeded?: return StatusStyle(fill: "#bbf7d0", stroke: "#15803d", text: "#052e16")
        case .failed?: return StatusStyle(fill: "#fecaca", stroke: "#b91c1c", text: "#450a0a")
        case .cancelled?: return StatusStyle(fill: "#d1d5db", stroke: "#4b5563", text: "#111827")
        case .skipped?: return StatusStyle(fill: "#f3f4f6", stroke: "#9ca3af", text: "#6b7280")
        case .running?: return StatusStyle(fill: "#bfdbfe", stroke: "#1d4ed8", text: "#172554")
        case .queued?, .waiting?: return StatusStyle(fill: "#fde68a", stroke: "#b45309", text: "#451a03")
        case .pending?, .ready?: return StatusStyle(fill: "#ffffff", stroke: "#64748b", text: "#0f172a")
        }
    }

    /// The states a legend lists, in the order it lists them (ready is drawn like pending).
    public static let legend: [NodeStatus] = [.succeeded, .failed, .cancelled, .skipped, .running, .queued, .waiting, .pending]
}
