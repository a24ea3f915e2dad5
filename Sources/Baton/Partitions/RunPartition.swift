/// Which partition a run belongs to: derived from its id alone, so every process (and SQL,
/// `baton.partition_of`) agrees without storing it. The first 32 bits of the UUID, which are
/// random in a version 4 id, modulo the partition count.
public enum RunPartition {
    /// The most partitions a schema may have, and the number `baton migrate` chooses by default.
    public static let maximum = 1024
    public static let standard = 64

    /// What is wrong with `count` as a partition count, or nil if it is one.
    public static func countProblem(_ count: Int) -> String? {
        (1...maximum).contains(count) ? nil : "--partitions must be from 1 to \(maximum), got \(count)"
    }

    /// The partition of run `id` among `count`; partition 0 for text that is not a UUID.
    public static func of(_ id: String, count: Int) -> Int {
        precondition(count >= 1, "a partition count is at least 1")
        var value: UInt32 = 0
        var digits = 0
        for c in id.utf8 where digits < 8 {
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: "-"): continue
            default: return 0
            }
            value = value << 4 | UInt32(digit)
            digits += 1
        }
        return digits == 8 ? Int(value % UInt32(count)) : 0
    }
}
