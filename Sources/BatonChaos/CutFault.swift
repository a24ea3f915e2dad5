/// One process cut off from one service (PostgreSQL or RabbitMQ) for a while, by its OS user's
/// rules (`ChaosFirewall`): struck at `start` seconds into the run, healed `seconds` later.
final class CutFault {
    let name: String
    let user: ChaosFirewall.User
    let ports: [Int]
    let direction: ChaosFirewall.Direction
    let start: Double
    let seconds: Double
    /// Seconds into the run when it was struck and when healed (nil: not yet).
    private(set) var struckAt: Double?
    private(set) var healedAt: Double?

    init(_ name: String, user: ChaosFirewall.User, ports: [Int], _ direction: ChaosFirewall.Direction, start: Double, seconds: Double) {
        self.name = name
        self.user = user
        self.ports = ports
        self.direction = direction
        self.start = start
        self.seconds = seconds
    }

    enum Change { case struck, healed }

    /// Strikes or heals it when due at `elapsed` seconds; says what changed.
    func step(at elapsed: Double, _ firewall: ChaosFirewall) -> Change? {
        if struckAt == nil && elapsed >= start {
            do {
                try firewall.cut(user, ports: ports, direction)
            } catch {
                say("could not cut \(name): \(error)")
                return nil
            }
            struckAt = elapsed
            say("cut \(name) (\(direction.rawValue), ports \(ports.map(String.init).joined(separator: ","))) at \(Int(elapsed)) s")
            return .struck
        }
        if let struck = struckAt, healedAt == nil && elapsed >= struck + seconds {
            heal(at: elapsed, firewall)
            return .healed
        }
        return nil
    }

    /// Heals it now if it is cut (also at the end of the run).
    func heal(at elapsed: Double, _ firewall: ChaosFirewall) {
        guard struckAt != nil && healedAt == nil else { return }
        firewall.heal(user)
        healedAt = elapsed
        say("healed the cut of \(name) at \(Int(elapsed)) s")
    }
}
