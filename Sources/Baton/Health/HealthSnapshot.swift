import Foundation

/// A `ServiceHealth` at one moment, and what the probes answer for it: the decision is this value's.
public struct HealthSnapshot: Sendable, Equatable {
    public struct Connection: Sendable, Equatable {
        public let name: String
        public var connected: Bool
    }

    public var lastBeat: Date
    public var quietUntil: Date?
    public var role: ServiceRole
    public var connections: [Connection]

    public init(lastBeat: Date, quietUntil: Date? = nil, role: ServiceRole, connections: [Connection] = []) {
        self.lastBeat = lastBeat
        self.quietUntil = quietUntil
        self.role = role
        self.connections = connections
    }

    /// Seconds a loop may go without a beat before liveness fails (a stuck thread, a deadlock).
    public static let stallLimit: Double = 60

    /// `/healthz`: 200 while the loop went round within `stallLimit` (or is in a wait it announced), else 503.
    public func liveness(now: Date, stallLimit: Double = Self.stallLimit) -> HealthVerdict {
        let silent = now.timeIntervalSince(lastBeat)
        if let quietUntil, now <= quietUntil.addingTimeInterval(stallLimit) {
            return HealthVerdict(status: 200, body: "ok: \(role.rawValue), waiting until \(Self.format(quietUntil))\n")
        }
        if silent <= stallLimit { return HealthVerdict(status: 200, body: "ok: \(role.rawValue)\n") }
        return HealthVerdict(
            status: 503, body: "stalled: the service loop has not gone round for \(Int(silent)) s (limit \(Int(stallLimit)) s)\n")
    }

    /// `/readyz`: 200 when the role does its work and every connection it needs is up; the body names
    /// the role (`owning` or `standby` for a coordinator) and each connection.
    public func readiness() -> HealthVerdict {
        let down = connections.filter { !$0.connected }
        let ready = role.isReady && down.isEmpty && !connections.isEmpty
        var body = "\(ready ? "ready" : "not ready"): \(role.rawValue)\n"
        for connection in connections { body += "\(connection.name): \(connection.connected ? "connected" : "disconnected")\n" }
        return HealthVerdict(status: ready ? 200 : 503, body: body)
    }

    private static func format(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}

/// An HTTP status and a plain-text body.
public struct HealthVerdict: Sendable, Equatable {
    public let status: Int
    public let body: String

    public init(status: Int, body: String) {
        self.status = status
        self.body = body
    }
}
