/// What a broker adapter keeps of a delivered task to publish it again as it came (its exchange and
/// headers): opaque to everyone else. Equal origins are of the same type and equal.
package protocol TaskOrigin: Sendable {
    /// Whether `other` is the same origin.
    func same(as other: any TaskOrigin) -> Bool
}

extension TaskOrigin where Self: Equatable {
    package func same(as other: any TaskOrigin) -> Bool { (other as? Self) == self }
}

/// Compares optional origins.
enum TaskOriginEquality {
    static func same(_ a: (any TaskOrigin)?, _ b: (any TaskOrigin)?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): a.same(as: b)
        default: false
        }
    }
}
