/// An API token's secret: `baton_` and 43 characters of base64url (256 random bits from the system's
/// CSPRNG). It is shown once, when made; the database keeps only its SHA-256 (`baton.tokens.hash`) and
/// its first characters (`prefix`), to tell tokens apart in lists and logs.
public struct TokenSecret: Sendable, Equatable {
    public let text: String

    public static let marker = "baton_"

    /// A new secret.
    public static func generate() -> TokenSecret {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<4 {
            var word = generator.next() as UInt64
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return TokenSecret(text: marker + base64URL(bytes))
    }

    public init(text: String) { self.text = text }

    /// The part shown in lists: the marker and 8 characters (48 of the 256 bits: enough to tell tokens
    /// apart, far too few to help guess one).
    public var prefix: String { String(text.prefix(Self.marker.count + 8)) }

    /// Whether `text` has the shape of a secret (a cheap check before asking the database).
    public var isWellFormed: Bool {
        text.hasPrefix(Self.marker) && text.utf8.count == Self.marker.utf8.count + 43
            && text.utf8.dropFirst(Self.marker.utf8.count).allSatisfy { Self.alphabet.contains($0) }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Base64url without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let chunk = bytes[i..<min(i + 3, bytes.count)]
            var value = 0
            for (n, byte) in chunk.enumerated() { value |= Int(byte) << (16 - 8 * n) }
            let characters = chunk.count + 1
            for n in 0..<characters { out.append(alphabet[(value >> (18 - 6 * n)) & 63]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
