import Testing

@testable import BatonSimulation

@Suite("simulation module")
struct SimulationModuleTests {
    @Test func theModuleLinks() { _ = Simulation.self }
}
