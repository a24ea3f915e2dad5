/// A point of a laid-out drawing, in pixels, y downward.
public struct DrawingPoint: Sendable, Equatable, Codable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
