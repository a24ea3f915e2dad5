import Foundation
import PropertyBased
import Testing

@testable import Baton

/// Each wire message has one description that its direct writer and reader and its `Codable`
/// conformance all follow; these check on random messages that the two paths agree: the same bytes
/// (members sorted by name at every depth), and each reads what the other writes back to the same
/// message. Each check runs on random seeds; a failure prints its seed and the input, and
/// `.fixedSeed(...)` on the test replays it.
@Suite("wire codecs: direct and Codable agree, on random messages")
struct WireCodecPropertyTests {
    static let count = 400

    @Test func jsonValuesAreWrittenAsJSONEncoderWritesThem() async {
        await propertyCheck(count: Self.count, input: Generator { WireSamples.json(&$0, depth: 4) }) { value async throws in
            var direct: [UInt8] = []
            value.writeWire(into: &direct)
            let viaFoundation = WireFormat.encode(value)
            #expect(text(direct) == text(viaFoundation))
            #expect(try JSONParser.parse(direct) == value)
        }
    }

    /// Objects wider than the few members a message has are sorted another way: the same order.
    @Test func wideObjectsAreSortedTheSameWay() async {
        await propertyCheck(count: 50, input: Generator { WireSamples.wideObject(&$0) }) { value async throws in
            var direct: [UInt8] = []
            value.writeWire(into: &direct)
            #expect(text(direct) == text(WireFormat.encode(value)))
        }
    }

    @Test func tasks() async {
        await propertyCheck(count: Self.count, input: Generator { WireSamples.task(&$0) }) { task async throws in
            let direct = task.encoded()
            let viaCodable = WireFormat.encode(task)
            #expect(text(direct) == text(viaCodable))
            #expect(TaskDispatch.read(direct) == task, "read directly")
            #expect(try WireFormat.decode(TaskDispatch.self, from: direct, what: "task") == task, "read through Codable")
            #expect(try TaskDispatch(decoding: viaCodable) == task)
        }
    }

    @Test func reports() async {
        await propertyCheck(count: Self.count, input: Generator { WireSamples.report(&$0) }) { report async throws in
            let direct = report.encoded()
            let viaCodable = WireFormat.encode(report)
            #expect(text(direct) == text(viaCodable))
            let read = ReportMessage.read(direct)
            #expect(read.map { WireSamples.same($0, report) } == true, "read directly: \(text(direct))")
            let decoded = try WireFormat.decode(ReportMessage.self, from: direct, what: "report")
            #expect(WireSamples.same(decoded, report), "read through Codable")
            #expect(WireSamples.same(try ReportMessage(decoding: viaCodable), report))
        }
    }

    /// A worker's result carries its output as the procedure encoded it: spliced in, not serialized again.
    @Test func reportsWithEncodedOutput() async {
        await propertyCheck(count: Self.count, input: Generator { WireSamples.report(&$0, canonicalOutput: true) }) { report async throws in
            let direct = report.encoded()
            #expect(text(direct) == text(WireFormat.encode(report)), "an output in wire form gives the same bytes")
            #expect(WireSamples.same(try ReportMessage(decoding: direct), report))
            if let output = report.encodedOutput {
                #expect(direct.firstRange(of: output.bytes) != nil, "spliced as it is")
                // In the procedure's own form (document order, 1.0 for a whole double), it is spliced all the same.
                var own = report
                own.encodedOutput = EncodedJSON(try output.decoded().serializedBytes())
                let ownBytes = own.encoded()
                #expect(ownBytes.firstRange(of: own.encodedOutput!.bytes) != nil)
                #expect(WireSamples.same(try ReportMessage(decoding: ownBytes), report))
            }
        }
    }

    @Test func heartbeats() async {
        await propertyCheck(count: Self.count, input: Generator { WireSamples.heartbeat(&$0) }) { beat async throws in
            let direct = beat.encoded()
            let viaCodable = WireFormat.encode(beat)
            #expect(text(direct) == text(viaCodable))
            #expect(WorkerHeartbeat.read(direct) == beat, "read directly")
            #expect(try WireFormat.decode(WorkerHeartbeat.self, from: direct, what: "heartbeat") == beat, "read through Codable")
            #expect(try WorkerHeartbeat(decoding: viaCodable) == beat)
        }
    }

    @Test func controlMessages() async {
        await propertyCheck(count: Self.count, input: Generator { WireSamples.control(&$0) }) { control async throws in
            let direct = control.encoded()
            let viaCodable = WireFormat.encode(control)
            #expect(text(direct) == text(viaCodable))
            #expect(ControlMessage.read(direct) == control, "read directly")
            #expect(try WireFormat.decode(ControlMessage.self, from: direct, what: "control message") == control, "read through Codable")
            #expect(try ControlMessage(decoding: viaCodable) == control)
        }
    }

    /// Members in another order, spaced out, are read the same (the direct reader searches for them).
    @Test func memberOrderAndSpacingDoNotMatter() async {
        await propertyCheck(count: Self.count, input: Generator { WireSamples.task(&$0) }) { task async throws in
            guard case let .object(members) = try JSONParser.parse(task.encoded()) else { return }
            let shuffled = JSON.object(JSONObject(members.members.reversed())).prettyPrinted()
            #expect(TaskDispatch.read(Array(shuffled.utf8)) == task)
        }
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
