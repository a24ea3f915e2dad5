import ArgumentParser
import BatonSimulation

/// `baton-sim --fault-mix swarm|uniform`.
extension SimulationFaultMix: ExpressibleByArgument {}
