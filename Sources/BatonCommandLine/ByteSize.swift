import BatonCommandLineCore
import Foundation

/// A size in bytes as an operator writes it: a whole number with an optional unit, `B`, `KiB`, `MiB`,
/// `GiB`, `TiB` (powers of 1024) or `KB`, `MB`, `GB`, `TB` (powers of 1000), case-insensitive:
/// `512MiB`, `1GiB`, `1048576`.
public enum ByteSize {
    static let units: [(suffix: String, factor: Int)] = [
        ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("tib", 1 << 40),
        ("kb", 1_000), ("mb", 1_000_000), ("gb", 1_000_000_000), ("tb", 1_000_000_000_000), ("b", 1),
    ]

    /// The bytes `text` names, or nil if it is not a size.
    public static func parse(_ text: String) -> Int? {
        let lower = text.trimmingCharacters(in: .whitespaces).lowercased()
        var digits = lower
        var factor = 1
        for unit in units where lower.hasSuffix(unit.suffix) {
            digits = String(lower.dropLast(unit.suffix.count)).trimmingCharacters(in: .whitespaces)
            factor = unit.factor
            break
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits), number >= 0 else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: factor)
        return overflow ? nil : bytes
    }

    /// The size `text` names for `flag`, within `range`; otherwise a usage error (exit 2) naming the flag.
    public static func parse(_ text: String, flag: String, range: ClosedRange<Int>) throws -> Int {
        guard let bytes = parse(text) else {
            throw CLIFailure("\(flag) must be a size such as 512MiB or 1GiB, got '\(text)'", exitCode: 2)
        }
        guard range.contains(bytes) else {
            throw CLIFailure(
                "\(flag) must be from \(describe(range.lowerBound)) to \(describe(range.upperBound)), got '\(text)'", exitCode: 2)
        }
        return bytes
    }

    /// `bytes` in the largest binary unit that divides it (`512MiB`), or in bytes.
    public static func describe(_ bytes: Int) -> String {
        for (suffix, factor) in [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        where bytes >= factor && bytes % factor == 0 {
            return "\(bytes / factor)\(suffix)"
        }
        return "\(bytes)B"
    }
}
