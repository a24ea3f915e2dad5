import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// What the `baton` binary prints and stores for good input, where the format is a promise to scripts.
    @Suite("CLI output", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct CLITests {
        @Test func versionIsOneLineNamingTheProgram() throws {
            let result = try TestCluster.cli(["--version"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.wholeMatch(of: /baton \d+\.\d+\.\d+\n/) != nil, "stdout: \(result.stdout)")
            #expect(result.stderr.isEmpty)
        }
    }
}
