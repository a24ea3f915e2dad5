import Baton
import Testing

/// A malformed message is refused with one line that names the message and the member at fault,
/// whichever of its coders meets it first (the direct reader leaves such messages to `Codable`).
@Suite("wire formats: what a malformed message is told")
struct WireErrorTests {
    @Test(arguments: [
        (#"{"v":1,"run":"r","node":"n","attempt":1,"procedure":"p","priority":0}"#, "task message is malformed: '/pool': required field is missing"),
        (
            #"{"v":1,"run":"r","node":"n","attempt":"1","procedure":"p","pool":"d","priority":0}"#,
            "task message is malformed: '/attempt': expected an integer"
        ),
        (
            #"{"v":1,"run":"r","node":null,"attempt":1,"procedure":"p","pool":"d","priority":0}"#,
            "task message is malformed: '/node': expected a string, found null"
        ),
        (#"{"v":2,"run":"r"}"#, "task message has version 2; this build of Baton reads version 1 only"),
        (#"{"run":"r"}"#, "task message is malformed: '/v': required field is missing"),
    ])
    func tasks(body: String, error: String) {
        #expect(refusal { _ = try TaskDispatch(decoding: Array(body.utf8)) } == error)
    }

    @Test(arguments: [
        (#"{"v":1,"type":"result","run":"r","node":"n","attempt":1,"status":"maybe"}"#, "report: result has unknown status 'maybe'"),
        (#"{"v":1,"type":"result","run":"r","node":"n","attempt":1}"#, "report is malformed: '/status': required field is missing"),
        (#"{"v":1,"type":"result","run":"r","node":"n","attempt":1,"status":"failed"}"#, "report is malformed: '/error': required field is missing"),
        (#"{"v":1,"type":"result","run":"r","node":"n","attempt":1,"status":"spawned"}"#, "report is malformed: '/spawn': required field is missing"),
        (#"{"v":1,"type":"progress","run":"r","node":"n","attempt":1}"#, "report is malformed: '/fraction': required field is missing"),
        (#"{"v":1,"type":"log","run":"r","node":"n","attempt":1}"#, "report is malformed: '/message': required field is missing"),
        (#"{"v":1,"type":"started","run":"r","node":"n","attempt":1,"at":"noon"}"#, "report is malformed: '/at': expected a number"),
        (#"{"v":1,"type":"gossip"}"#, "report is malformed: '/type': Cannot initialize Kind from invalid String value gossip"),
    ])
    func reports(body: String, error: String) {
        #expect(refusal { _ = try ReportMessage(decoding: Array(body.utf8)) } == error)
    }

    @Test func controlAndHeartbeat() {
        #expect(
            refusal { _ = try ControlMessage(decoding: Array(#"{"v":1,"type":"pause","run":"r","attempts":[]}"#.utf8)) }
                == "control message of unknown type 'pause'")
        #expect(
            refusal { _ = try ControlMessage(decoding: Array(#"{"v":1,"type":"cancel","run":"r","attempts":[{"node":"a"}]}"#.utf8)) }
                == "control message is malformed: '/attempts[0]/attempt': required field is missing")
        #expect(
            refusal { _ = try WorkerHeartbeat(decoding: Array(#"{"v":1,"id":"w","host":"h","pid":1,"pools":"default"}"#.utf8)) }
                == "heartbeat is malformed: '/busy': required field is missing")
    }

    /// The error's description, or "read" if there was none.
    private func refusal(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "read"
        } catch { return "\(error)" }
    }
}
