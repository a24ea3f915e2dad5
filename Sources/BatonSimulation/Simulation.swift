/// Baton's cluster simulator: the real coordinator, workers' state machines, scheduler and
/// procedures, with in-memory twins of the store (`MemoryStore`) and the broker (`MemoryBroker`),
/// on a virtual clock, every source of nondeterminism seeded.
public enum Simulation {}
