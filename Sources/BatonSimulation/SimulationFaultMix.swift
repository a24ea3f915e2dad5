/// How a seed's faults are mixed (`baton-sim --fault-mix`).
public enum SimulationFaultMix: String, Sendable, CaseIterable {
    /// Each seed draws its own chance per step for every fault kind (swarm testing, as TigerBeetle's
    /// simulator does): some kinds off, others several times as frequent as the rest
    /// (`FaultMix.swarm`), so faults that only hurt in numbers, or only without another kind's
    /// cover, get their seeds.
    case swarm
    /// One chance per step (`--fault-rate`), the kind drawn evenly: the mix before the swarm, which
    /// the seeds kept as tests of earlier findings replay.
    case uniform
}
