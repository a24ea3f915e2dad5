/// `repeat`: run again until the output matches.
public struct RepeatPolicy: Sendable, Equatable, Codable {
    public let select: JSONPointer
    public let equals: JSON
    public let wait: WaitStrategy
    /// Most runs in all, the first included.
    public let max: Int
}
