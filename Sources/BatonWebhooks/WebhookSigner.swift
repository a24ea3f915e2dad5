import Crypto
import Foundation

/// Signs a delivery's body: `Baton-Signature: t=UNIX_SECONDS,v1=HEX`, where HEX is the lowercase hex of
/// HMAC-SHA256 over `UNIX_SECONDS + "." + BODY` under the webhook's secret (docs/api.md, "Webhooks").
public struct WebhookSigner: Sendable {
    /// The header's name.
    public static let header = "Baton-Signature"
    private let key: SymmetricKey

    public init(secret: String) { key = SymmetricKey(data: Data(secret.utf8)) }

    /// The header's value for `body` sent at `time` (seconds since 1970).
    public func signature(body: [UInt8], time: Int64) -> String {
        "t=\(time),v1=" + Self.hex(mac(body: body, time: time))
    }

    /// Whether `header` is a valid signature of `body` made within `tolerance` seconds of `now`:
    /// what a receiver checks (a replayed old `t` or a changed body fails). Compares in constant time.
    public func verify(header: String, body: [UInt8], now: Int64, tolerance: Int64 = 300) -> Bool {
        var time: Int64?
        var given: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { time = Int64(pair[1]) }
            if pair[0] == "v1", let bytes = Self.bytes(hex: pair[1]) { given.append(bytes) }
        }
        guard let time, abs(now - time) <= tolerance else { return false }
        let payload = Array("\(time).".utf8) + body
        return given.contains { HMAC<SHA256>.isValidAuthenticationCode($0, authenticating: payload, using: key) }
    }

    private func mac(body: [UInt8], time: Int64) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Array("\(time).".utf8))
        hmac.update(data: body)
        return Array(hmac.finalize())
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func bytes(hex: String) -> [UInt8]? {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        var i = 0
        while i < chars.count {
            guard let hi = value(chars[i]), let lo = value(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}
