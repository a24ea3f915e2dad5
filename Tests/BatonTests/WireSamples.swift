import Foundation
import PropertyBased

@testable import Baton

/// Random wire messages and the values they hold, for the property tests of the codecs: strings of
/// every kind of character (quotes, backslashes, control characters, accents, combining marks,
/// emoji), integers and doubles across their range, and JSON nested a few levels deep.
enum WireSamples {
    typealias RNG = any SeededRandomNumberGenerator

    /// A few characters of each kind that the escaping, the sorting or the encoding could get wrong.
    static let characters: [Character] =
        Array("aZ09 _-/.:\"\\'{}[],") + (0..<0x20).map { Character(Unicode.Scalar($0)!) } + [
            "\u{7F}", "é", "ß", "Å", "ñ", "\u{301}", "日", "本", "\u{2028}", "\u{FEFF}", "Ａ", "ｂ", "😀", "𝄞", "\u{10FFFF}",
        ]

    static func string(_ rng: inout RNG, length: ClosedRange<Int> = 0...10) -> String {
        String((0..<Int.random(in: length, using: &rng)).map { _ in characters.randomElement(using: &rng)! })
    }

    static func int(_ rng: inout RNG) -> Int {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return Int.random(in: -3...3, using: &rng)
        case 1: return Int.random(in: Int.min...Int.max, using: &rng)
        case 2: return [Int.min, Int.max, 1 << 53, (1 << 53) + 1][Int.random(in: 0..<4, using: &rng)]
        default: return Int.random(in: -100_000...100_000, using: &rng)
        }
    }

    /// Any finite double: whole ones (which lose their ".0"), tiny and huge ones (exponents), fractions.
    static func double(_ rng: inout RNG) -> Double {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return Double(Int.random(in: -1_000_000...1_000_000, using: &rng))
        case 1: return Double(Int.random(in: -100_000...100_000, using: &rng)) / 64
        case 2: return Double.random(in: -1...1, using: &rng)
        case 3: return [0.0, -0.0, 1e15, 1e16, 9_007_199_254_740_992, 1e-7, 1e300, -2.5e-300][Int.random(in: 0..<8, using: &rng)]
        default:
            while true {
                let d = Double(bitPattern: rng.next())
                // Codable's reader (the fallback, not the wire's own) parses a whole double between 2^53
                // and 2^63 written with an exponent, such as -1.5958087235212534e+18, as the Int64 its
                // decimal digits name (-1595808723521253400), which is not the double's exact value: a
                // limit of Foundation's number model, so such values are not drawn.
                if d.isFinite && !(abs(d) >= 9_007_199_254_740_992 && abs(d) < 9.3e18) { return d }
            }
        }
    }

    /// A time whose seconds since 1970 survive `Date` exactly (1985 to 2031: `Date` keeps seconds since 2001).
    static func date(_ rng: inout RNG) -> Date {
        Date(timeIntervalSince1970: Double(Int.random(in: 500_000_000...1_900_000_000, using: &rng)) + Double.random(in: 0..<1, using: &rng))
    }

    static func maybe<T>(_ rng: inout RNG, _ make: (inout RNG) -> T) -> T? {
        Bool.random(using: &rng) ? make(&rng) : nil
    }

    /// A JSON value nested up to `depth` levels; objects have distinct names (as `String`s compare,
    /// so that `Codable`'s dictionary keeps every one).
    static func json(_ rng: inout RNG, depth: Int = 3) -> JSON {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64(int(&rng)))
        case 3: return .double(double(&rng))
        case 4, 5: return .string(string(&rng))
        case 6: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in json(&rng, depth: depth - 1) })
        default:
            var names = Set<String>()
            for _ in 0..<Int.random(in: 0...6, using: &rng) { names.insert(string(&rng, length: 0...6)) }
            return .object(JSONObject(names.shuffled(using: &rng).map { ($0, json(&rng, depth: depth - 1)) }))
        }
    }

    /// An object of many members (17 to 300), named alike ("n-9", "n-10", "N-1", "n-é"...).
    static func wideObject(_ rng: inout RNG) -> JSON {
        var names = Set<String>()
        for _ in 0..<Int.random(in: 17...300, using: &rng) {
            names.insert(
                ["n-", "N-", "n_", "n-é", ""].randomElement(using: &rng)! + String(Int.random(in: 0...999, using: &rng)) + string(&rng, length: 0...2)
            )
        }
        return .object(JSONObject(names.shuffled(using: &rng).map { ($0, .int(Int64(Int.random(in: 0...9, using: &rng)))) }))
    }

    /// A JSON value that is not null (an optional member that is null reads as absent).
    static func nonNullJSON(_ rng: inout RNG) -> JSON {
        while true {
            let value = json(&rng)
            if value != .null { return value }
        }
    }

    static func task(_ rng: inout RNG) -> TaskDispatch {
        TaskDispatch(
            runID: string(&rng), key: string(&rng), attempt: int(&rng), procedure: string(&rng), input: json(&rng), pool: string(&rng),
            priority: int(&rng), phase: Bool.random(using: &rng) ? .run : .condition, timeout: maybe(&rng, double),
            previousOutput: maybe(&rng, nonNullJSON))
    }

    /// A report of any kind as the coordinator reads it (a result's output parsed), or, with
    /// `canonicalOutput`, as a worker sends it with the output's bytes already in wire form.
    static func report(_ rng: inout RNG, canonicalOutput: Bool = false) -> ReportMessage {
        let kind = [ReportMessage.Kind.started, .result, .progress, .log][Int.random(in: 0..<4, using: &rng)]
        var m = ReportMessage(kind: kind, runID: string(&rng), key: string(&rng), attempt: int(&rng))
        m.worker = maybe(&rng) { string(&$0) }
        switch kind {
        case .started: m.startedAt = maybe(&rng, date)
        case .result:
            m.phase = Bool.random(using: &rng) ? .run : .condition
            m.startedAt = maybe(&rng, date)
            m.finishedAt = maybe(&rng, date)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: m.failure = (string(&rng), Bool.random(using: &rng))
            case 1:
                m.output = json(&rng)
                m.spawned = true
            default: m.output = json(&rng)
            }
            if canonicalOutput, m.failure == nil, let output = m.output {
                // Written, read and written again: the wire form of what a reader makes of it ("-0" reads as 0).
                var bytes: [UInt8] = []
                output.writeWire(into: &bytes)
                var again: [UInt8] = []
                (try! JSONParser.parse(bytes)).writeWire(into: &again)
                m.encodedOutput = EncodedJSON(again)
                m.output = nil
            }
        case .progress:
            m.fraction = Double.random(in: 0...1, using: &rng)
            m.message = maybe(&rng) { string(&$0) }
        case .log: m.message = string(&rng)
        }
        return m
    }

    static func heartbeat(_ rng: inout RNG) -> WorkerHeartbeat {
        let known = Array(ProcedureRegistry.builtIn.schemas.values)
        let schemas: [String: ProcedureSchema]? = maybe(&rng) { rng in
            var schemas: [String: ProcedureSchema] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &rng) { schemas[string(&rng)] = known.randomElement(using: &rng)! }
            return schemas
        }
        return WorkerHeartbeat(
            id: string(&rng), host: string(&rng), pid: int(&rng), pools: (0..<Int.random(in: 0...3, using: &rng)).map { _ in string(&rng) },
            procedures: (0..<Int.random(in: 0...3, using: &rng)).map { _ in string(&rng) }, slots: int(&rng), startedAt: date(&rng),
            busy: int(&rng), interval: double(&rng), stopping: Bool.random(using: &rng), schemas: schemas,
            holding: Bool.random(using: &rng)
                ? nil : (0..<Int.random(in: 0...3, using: &rng)).map { _ in HeldAttempt(runID: string(&rng), key: string(&rng), attempt: int(&rng)) })
    }

    static func control(_ rng: inout RNG) -> ControlMessage {
        ControlMessage(
            runID: string(&rng), attempts: (0..<Int.random(in: 0...4, using: &rng)).map { _ in TaskRef(key: string(&rng), attempt: int(&rng)) })
    }

    /// Whether two reports say the same (`ReportMessage` is not `Equatable`; objects compare without regard to order).
    static func same(_ a: ReportMessage, _ b: ReportMessage) -> Bool {
        a.kind == b.kind && a.runID == b.runID && a.key == b.key && a.attempt == b.attempt && a.phase == b.phase && a.worker == b.worker
            && a.startedAt == b.startedAt && a.finishedAt == b.finishedAt && a.spawned == b.spawned
            && a.failure?.message == b.failure?.message && a.failure?.permanent == b.failure?.permanent && a.fraction == b.fraction
            && a.message == b.message && (a.output ?? (try? a.encodedOutput?.decoded())) == (b.output ?? (try? b.encodedOutput?.decoded()))
    }
}
