import Baton
import Testing

@Suite("A task's traceparent: a header, not part of the body")
struct TaskTraceparentTests {
    @Test func theBodyIsTheSameWithOrWithoutItSoOlderWorkersReadTheTaskAsBefore() throws {
        var task = TaskDispatch(runID: "r", key: "a", attempt: 2, procedure: "baton.echo", input: ["x": 1], pool: "default", priority: 3)
        let plain = task.encoded()
        task.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        #expect(task.encoded() == plain)
        let decoded = try TaskDispatch(decoding: plain)
        #expect(decoded.traceparent == nil && decoded.key == "a" && decoded.attempt == 2)
    }
}
