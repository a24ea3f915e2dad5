import Baton
import Foundation
import Testing

extension Integration {
    /// Bad input of every kind: one clear line on stderr naming what is wrong, a
    /// non-zero exit, and nothing stored.
    @Suite("bad input through the CLI", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct BadInputTests {
        struct Case: CustomStringConvertible, Sendable {
            let name: String
            let arguments: @Sendable (String) -> [String]   // given a scratch directory
            let files: [String: String]
            let status: Int32
            let message: String
            var description: String { name }
        }

        nonisolated static let cases: [Case] = [
            Case(name: "missing file", arguments: { ["submit", "\($0)/nope.json"] }, files: [:], status: 2, message: "nope.json: no such file"),
            Case(name: "directory", arguments: { ["submit", $0] }, files: [:], status: 2, message: "is a directory"),
            Case(name: "truncated JSON", arguments: { ["submit", "\($0)/g.json"] }, files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo""#],
                 status: 2, message: "invalid JSON at line 1"),
            Case(name: "empty file", arguments: { ["submit", "\($0)/g.json"] }, files: ["g.json": ""], status: 2, message: "unexpected end of input"),
            Case(name: "not an object", arguments: { ["submit", "\($0)/g.json"] }, files: ["g.json": "[1, 2]"], status: 2,
                 message: "a graph must be a JSON object, found array"),
            Case(name: "cycle", arguments: { ["submit", "\($0)/g.json"] },
                 files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "input": {"$from": "b"}}, "b": {"procedure": "baton.echo", "after": ["a"]}}}"#],
                 status: 2, message: "dependency cycle: "),
            Case(name: "unknown procedure", arguments: { ["submit", "\($0)/g.json"] },
                 files: ["g.json": #"{"nodes": {"a": {"procedure": "acme.nope"}}}"#], status: 2, message: "unknown procedure 'acme.nope'"),
            Case(name: "SQL in a key", arguments: { ["submit", "\($0)/g.json"] },
                 files: ["g.json": #"{"nodes": {"a'; drop table baton.runs; --": {"procedure": "baton.echo"}}}"#], status: 2, message: "invalid node key"),
            Case(name: "wrong type", arguments: { ["submit", "\($0)/g.json"] },
                 files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "after": "b", "priority": "high"}}}"#], status: 2,
                 message: "field 'after': must be an array of node keys, found string"),
            Case(name: "not yet supported field", arguments: { ["submit", "\($0)/g.json"] },
                 files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "mutex": ["db"]}}}"#], status: 2,
                 message: "field 'mutex': is not supported yet"),
            Case(name: "bad duration", arguments: { ["submit", "\($0)/g.json"] },
                 files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "timeout": "5 minutes"}}}"#], status: 2,
                 message: "field 'timeout': '5 minutes' is not a duration"),
            Case(name: "unknown option", arguments: { _ in ["runs", "--frobnicate"] }, files: [:], status: 2, message: "Unknown option '--frobnicate'"),
            Case(name: "bad --limit", arguments: { _ in ["runs", "--limit", "0"] }, files: [:], status: 2, message: "--limit must be from 1 to 10000"),
            Case(name: "bad --status", arguments: { _ in ["runs", "--status", "done"] }, files: [:], status: 2, message: "unknown status 'done'"),
            Case(name: "malformed run id", arguments: { _ in ["show", "x'; select 1; --"] }, files: [:], status: 1, message: "is not a run id"),
            Case(name: "unknown run id", arguments: { _ in ["show", "00000000-0000-0000-0000-000000000000"] }, files: [:], status: 1,
                 message: "no run with id 00000000-0000-0000-0000-000000000000"),
            Case(name: "unreachable database, password hidden", arguments: { _ in ["runs", "--database-url", "postgresql://u:hunter2@127.0.0.1:1/baton"] },
                 files: [:], status: 1, message: "cannot connect to postgresql://u:***@127.0.0.1:1/baton"),
            Case(name: "bad worker concurrency", arguments: { _ in ["worker", "--concurrency", "0"] }, files: [:], status: 2,
                 message: "--concurrency must be from 1 to 10000"),
            Case(name: "bad pool name", arguments: { _ in ["worker", "--pools", "GPU"] }, files: [:], status: 2, message: "invalid pool name 'GPU'"),
            Case(name: "run without --local", arguments: { ["run", "\($0)/g.json"] }, files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}}}"#],
                 status: 2, message: "needs --local"),
        ]

        @Test("is refused with a clear one-line error and nothing stored", arguments: cases)
        func refused(_ c: Case) throws {
            _ = TestCluster()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, text) in c.files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
            let store = try TestCluster.store()
            defer { store.close() }
            let before = try store.connection.query("select count(*) as n from baton.runs").int(0, "n")

            let result = try TestCluster.cli(c.arguments(directory.path))
            #expect(result.status == c.status, "exit \(result.status): \(result.stderr)")
            #expect(result.stderr.hasPrefix("baton: "))
            #expect(result.stderr.contains(c.message), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("hunter2"))
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"))
            #expect(try store.connection.query("select count(*) as n from baton.runs").int(0, "n") == before)
        }
    }
}
