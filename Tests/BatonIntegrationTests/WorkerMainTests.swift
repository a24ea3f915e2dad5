import Baton
import Foundation
import Testing

extension Integration {
    /// A worker binary of one's own, built with `WorkerMain.main(registry:)` (BatonTestWorker is one):
    /// `baton worker`'s interface, and `validate` / `run --local` with its own procedures.
    @Suite("WorkerMain binaries", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct WorkerMainTests {
        static func worker(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try ChildProcess.run(
                TestWorkerRestarter.executablePath, arguments,
                environment: ["BATON_AMQP_URL": TestCluster.amqpURL, "BATON_DATABASE_URL": TestCluster.databaseURL])
        }

        static func graph(_ text: String) throws -> String {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("main-\(UUID().uuidString.prefix(8)).json").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }

        @Test func helpShowsEveryFlagOfBatonWorkerAndTheLocalCommands() throws {
            let help = try Self.worker(["--help"])
            #expect(help.status == 0, "stderr: \(help.stderr)")
            let baton = try TestCluster.cli(["worker", "--help"])
            for flag in [
                "--amqp-url", "--concurrency", "--prefetch", "--processes", "--pools", "--shutdown-grace", "--heartbeat", "--delivery-limit",
                "--metrics", "--otlp-endpoint",
            ] {
                #expect(help.stdout.contains(flag), "\(flag) missing from:\n\(help.stdout)")
                #expect(baton.stdout.contains(flag), "\(flag) missing from baton worker --help")
            }
            #expect(help.stdout.contains("validate") && help.stdout.contains("run"))
            let version = try Self.worker(["--version"])
            #expect(version.status == 0)
            #expect(version.stdout.wholeMatch(of: /BatonTestWorker \(Baton \d+\.\d+\.\d+\)\n/) != nil, "stdout: \(version.stdout)")
        }

        @Test(
            "a bad flag is one line naming it, exit 2, before anything connects",
            arguments: [
                (["--concurrency", "0"], "--concurrency must be from 1 to 10000, got 0"),
                (["--pools", "a b"], "--pools: invalid pool name 'a b'"),
                (["--metrics", "nowhere"], "--metrics: 'nowhere' is not HOST:PORT"),
                (["--bogus"], "Unknown option '--bogus'"),
            ])
        func badFlags(_ arguments: [String], _ expected: String) throws {
            let result = try Self.worker(arguments)
            #expect(result.status == 2, "stderr: \(result.stderr)")
            #expect(result.stderr.hasPrefix("BatonTestWorker: "), "stderr: \(result.stderr)")
            #expect(result.stderr.contains(expected), "stderr: \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
        }

        @Test func aWrongPasswordIsOneLineAndExitOneNotARetryLoop() throws {
            let url = TestCluster.amqpURL.replacingOccurrences(of: "guest:guest@", with: "guest:wrong@")
            let result = try Self.worker(["--amqp-url", url, "--processes", "2"])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("BatonTestWorker: worker: "), "stderr: \(result.stderr)")
        }

        @Test func validateAndRunLocallyKnowTheWorkersOwnProcedures() throws {
            let path = try Self.graph(
                #"{"nodes": {"steps": {"procedure": "demo.steps", "input": {"steps": 2, "seconds": 0.01}}, "echo": {"procedure": "baton.echo", "input": {"$from": "steps"}}}}"#
            )
            let validate = try Self.worker(["validate", path])
            #expect(validate.status == 0, "stderr: \(validate.stderr)")
            #expect(validate.stdout == "\(path): valid (2 nodes)\n")
            let run = try Self.worker(["run", "--local", path, "--json"])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(try JSONParser.parse(run.stdout)["status"] == "succeeded", "stdout: \(run.stdout)")

            let crash = try Self.graph(#"{"nodes": {"c": {"procedure": "test.crash-worker", "input": {}}}}"#)
            #expect(try Self.worker(["validate", crash]).status == 0, "the binary knows its own procedures")
            let baton = try TestCluster.cli(["validate", crash])
            #expect(baton.status == 2)
            #expect(baton.stderr.contains("YOUR-WORKER validate FILE"), "baton says where to check it: \(baton.stderr)")
        }

        @Test func anUnknownOrMistypedProcedureIsNamedWithTheClosestOne() throws {
            let path = try Self.graph(#"{"nodes": {"a": {"procedure": "test.crash-workr", "input": {}}}}"#)
            let result = try Self.worker(["validate", path])
            #expect(result.status == 2)
            #expect(result.stderr.contains("unknown procedure 'test.crash-workr' (did you mean 'test.crash-worker'?"), "stderr: \(result.stderr)")
            let run = try Self.worker(["run", path])
            #expect(run.status == 2)
            #expect(run.stderr.contains("`run` needs --local"), "stderr: \(run.stderr)")
        }
    }
}
