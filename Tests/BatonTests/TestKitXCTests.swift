import Baton
import BatonTesting
import XCTest

/// The test kit from XCTest: the same calls, the thrown `TestFailure` fails the test with its message.
final class TestKitXCTests: XCTestCase {
    func testAnHourLongBackOffAtVirtualTime() async throws {
        let run = try await GraphTest().run(
            json: #"""
                {"nodes": {"flaky": {"procedure": "baton.fail", "input": {"message": "busy", "succeed_on_attempt": 2},
                                     "retry": {"attempts": 2, "wait": {"constant": "1h"}}}}}
                """#)
        try run.expectSucceeded().expectOutput(of: "flaky", equals: ["attempt": 2])
        XCTAssertEqual(try run.attempts(of: "flaky"), 2)
        XCTAssertEqual(run.time(of: "succeeded", for: "flaky"), TestClock.defaultStart.addingTimeInterval(3600))
    }

    func testAFailedExpectationSaysWhy() async throws {
        let run = try await GraphTest().run(json: #"{"nodes": {"bad": {"procedure": "baton.fail", "input": {"message": "no"}}}}"#)
        XCTAssertThrowsError(try run.expect("bad", is: .succeeded)) { error in
            XCTAssertEqual("\(error)", "node 'bad' is failed, expected succeeded (error: no)\n" + run.table)
            XCTAssertTrue(run.table.hasSuffix("  bad   failed  1         no"), run.table)
        }
    }
}
