import Foundation

/// What a service's loops say about themselves, for its `/healthz` and `/readyz` endpoints:
/// when the loop last went round, which connections are up and its role. Loops write it, the
/// HTTP server reads a `HealthSnapshot` of it; what the endpoints answer is decided by that value.
public final class ServiceHealth: @unchecked Sendable {
    // Safe: every member is read and written with `lock` held.
    private let lock = NSLock()
    private var lastBeat: Date
    private var quietUntil: Date?
    private var role: ServiceRole = .starting
    private var connections: [HealthSnapshot.Connection] = []

    public init(now: Date = Date()) { lastBeat = now }

    /// The loop is alive at `now`. `quietFor` announces a wait (a reconnect back-off) during which it
    /// will not beat again, so liveness does not fail for a wait the loop chose.
    public func beat(now: Date = Date(), quietFor seconds: Double = 0) {
        lock.withLock {
            lastBeat = now
            quietUntil = seconds > 0 ? now.addingTimeInterval(seconds) : nil
        }
    }

    /// What the service is doing now (owning, standby, serving, draining...).
    public func set(role: ServiceRole) { lock.withLock { self.role = role } }

    /// Records whether the connection to `dependency` ("postgresql", "rabbitmq") is up. A service
    /// lists only what its role needs: dependencies not set are not part of its readiness.
    public func set(_ dependency: String, connected: Bool) {
        lock.withLock {
            if let index = connections.firstIndex(where: { $0.name == dependency }) {
                connections[index].connected = connected
            } else {
                connections.append(.init(name: dependency, connected: connected))
            }
        }
    }

    /// Forgets a dependency.
    public func forget(_ dependency: String) { lock.withLock { connections.removeAll { $0.name == dependency } } }

    public func snapshot() -> HealthSnapshot {
        lock.withLock { HealthSnapshot(lastBeat: lastBeat, quietUntil: quietUntil, role: role, connections: connections) }
    }
}
