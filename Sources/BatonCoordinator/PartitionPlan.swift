/// What a coordinator does about its partitions this round (`PartitionBalancer.plan`): take these
/// free ones, hand these back. Renewing what it keeps is separate and happens every round.
public struct PartitionPlan: Sendable, Equatable {
    /// Free partitions to take (released, or their lease ran out), in the order to try them.
    public var acquire: [Int] = []
    /// Partitions it holds beyond its share: drain their runs, then release them.
    public var release: [Int] = []

    public init(acquire: [Int] = [], release: [Int] = []) {
        self.acquire = acquire
        self.release = release
    }
}
