import Baton
import Testing

@testable import BatonCoordinator

@Suite("the coordinator's own output check")
struct OutputCheckTests {
    static func report(_ output: JSON, spawned: Bool = false) throws -> (ReportMessage, Int) {
        let encoded = EncodedJSON(output)
        let result = AttemptResult<EncodedJSON>(key: "n", attempt: 1, outcome: spawned ? .spawned(encoded) : .succeeded(encoded), worker: "w")
        let body = ReportMessage.result(runID: "r", result).encoded()
        return (try ReportMessage(decoding: body), body.count)
    }

    @Test func anOutputOverTheLimitFailsItsNodePermanentlyWhateverTheWorkerSaid() throws {
        let big = JSON.string(String(repeating: "x", count: 200))
        let (report, bytes) = try Self.report(big)
        let checked = OutputCheck(maxOutputBytes: 100).checked(report, messageBytes: bytes)
        #expect(checked.output == nil)
        #expect(checked.failure?.permanent == true)
        #expect(
            checked.failure?.message
                == "output is 202 bytes, more than the limit of 100 (BATON_MAX_OUTPUT_BYTES); refused by the coordinator")
        guard case let .result(result) = checked.event, case .failed(_, permanent: true) = result.outcome else {
            Issue.record("the node's event is not a permanent failure: \(checked.event)")
            return
        }
    }

    @Test func aSpawnedGraphOverTheLimitIsRefusedTooAndOutputsWithinItPass() throws {
        let (spawned, bytes) = try Self.report(["nodes": ["a": ["procedure": .string(String(repeating: "p", count: 200))]]], spawned: true)
        let refused = OutputCheck(maxOutputBytes: 100).checked(spawned, messageBytes: bytes)
        #expect(refused.spawned == false && refused.failure?.message.hasPrefix("the spawned graph is ") == true)
        let (small, smallBytes) = try Self.report(.string("ok"))
        let kept = OutputCheck(maxOutputBytes: 100).checked(small, messageBytes: smallBytes)
        #expect(kept.failure == nil && kept.output == .string("ok"))
        let (exact, exactBytes) = try Self.report(.string(String(repeating: "y", count: 98)))
        #expect(OutputCheck(maxOutputBytes: 100).checked(exact, messageBytes: exactBytes).failure == nil, "exactly the limit is allowed")
    }
}
