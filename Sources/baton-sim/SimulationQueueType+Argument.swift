import ArgumentParser
import BatonSimulation

/// `--queue-type classic|quorum|mixed`.
extension SimulationQueueType: ExpressibleByArgument {}
