import Foundation

/// The type name of the error an attempt's procedure threw, set from the task that ran it and
/// read once the attempt's outcome is known.
final class ThrownType: @unchecked Sendable {
    // Safe: `name` is only touched under `lock`.
    private let lock = NSLock()
    private var name: String?

    func set(_ type: String) { lock.withLock { name = type } }
    var value: String? { lock.withLock { name } }
}
