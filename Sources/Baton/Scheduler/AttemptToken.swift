/// The secret of one attempt: 128 random bits the coordinator draws when it queues the attempt,
/// stores with the node, sends in the task and expects back in every report of that attempt
/// (`ReportCheck`). Whoever can read the dashboard knows a run's id, a node's key and its attempt,
/// but never this. On the wire and in `baton.nodes.attempt_token`: 32 lowercase hex digits.
public struct AttemptToken: Sendable, Hashable {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A new token from the system's cryptographically secure generator (`getrandom` on Linux).
    public static func random() -> AttemptToken {
        var generator = SystemRandomNumberGenerator()
        return AttemptToken(high: generator.next(), low: generator.next())
    }

    /// The token as 32 lowercase hex digits.
    public var text: String {
        var bytes = [UInt8](repeating: 0, count: 32)
        for (i, word) in [high, low].enumerated() {
            for j in 0..<16 {
                let nibble = UInt8((word >> UInt64(60 - 4 * j)) & 0xF)
                bytes[i * 16 + j] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads 32 hex digits (either case); nil for anything else.
    public init?(text: String) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var count = 0
        for byte in text.utf8 {
            let nibble: UInt8
            switch byte {
            case 0x30...0x39: nibble = byte - 0x30
            case 0x61...0x66: nibble = byte - 0x57
            case 0x41...0x46: nibble = byte - 0x37
            default: return nil
            }
            guard count < 32 else { return nil }
            if count < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
            count += 1
        }
        guard count == 32 else { return nil }
        self.init(high: high, low: low)
    }
}
