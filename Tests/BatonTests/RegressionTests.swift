import Baton
import BatonDemo
import Testing

/// Bugs found by review, each pinned by a test that failed before its fix.
@Suite("regressions")
struct RegressionTests {
    @Test func aCycleIsReportedAlongsideOtherProblems() throws {
        let graph = try json(
            #"{"colour": 1, "nodes": {"a": {"procedure": "baton.echo", "after": ["b"]}, "b": {"procedure": "baton.echo", "after": ["a"]}}}"#)
        do {
            _ = try GraphDecoder().decode(graph)
            Issue.record("accepted")
        } catch {
            #expect(error.problems.contains { $0.field == "colour" })
            #expect(error.problems.contains { $0.message.hasPrefix("dependency cycle: ") })
        }
    }

    @Test func columnsAfterAByteOrderMarkStartAtOne() {
        let error = parseError([0xEF, 0xBB, 0xBF] + Array("x".utf8))
        #expect(error?.line == 1)
        #expect(error?.column == 1)
    }

    @Test func keysThatOnlyLookAlikeAreDistinct() throws {
        let value = try json("{\"\u{e9}\": 1, \"e\u{301}\": 2}")
        #expect(value["\u{e9}"] == 1)
        #expect(value["e\u{301}"] == 2)
    }

    @Test func aSlashBeforeACombiningMarkStillSeparatesTokens() throws {
        let pointer = try JSONPointer(parsing: "/a/\u{301}b")
        #expect(pointer.tokens == ["a", "\u{301}b"])
    }

    @Test func integerSumsStayExact() async throws {
        let big: Int64 = 9_007_199_254_740_993
        let result = try NumberFolding.fold([.int(big), .int(0)], .sum, procedure: "baton.add")
        #expect(result == .int(big))
    }

    @Test func anOverflowingSumFailsPermanently() {
        #expect(throws: ProcedureFailure.self) { try NumberFolding.fold([.double(1e308), .double(1e308)], .sum, procedure: "baton.add") }
    }

    @Test func numberEqualityIsTransitive() {
        let a = JSON.int(9_007_199_254_740_993)
        let b = JSON.double(9_007_199_254_740_992)
        let c = JSON.int(9_007_199_254_740_992)
        #expect(b == c)
        #expect(a != b)
        #expect(a != c)
    }

    @Test func aHugeSleepIsRefusedNotACrash() async throws {
        let registry = ProcedureRegistry.builtIn
        let task = TaskDispatch(runID: "r", key: "k", attempt: 1, procedure: "baton.sleep", input: ["seconds": 1e30], pool: "default", priority: 0)
        let result = await registry.attempt(task, worker: "w", logger: .init(label: "t"))
        guard case let .failed(_, permanent) = result.outcome else { Issue.record("did not fail"); return }
        #expect(permanent)
    }

    @Test func formatFillsEachPlaceholderOnce() async throws {
        let result = await runAttempt(
            "demo.format", ["template": "{a} and {b} and {missing}", "values": ["a": "{b}", "b": "B"]],
            registry: .demo)
        #expect(result.outcome == .succeeded(["text": "{b} and B and {missing}"]))
    }
}
