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
            let arguments: @Sendable (String) -> [String]  // given a scratch directory
            let files: [String: String]
            let status: Int32
            let message: String
            var environment: [String: String] = [:]
            var description: String { name }
        }

        nonisolated static let cases: [Case] = [
            Case(name: "missing file", arguments: { ["submit", "\($0)/nope.json"] }, files: [:], status: 2, message: "nope.json: no such file"),
            Case(name: "directory", arguments: { ["submit", $0] }, files: [:], status: 2, message: "is a directory"),
            Case(
                name: "truncated JSON", arguments: { ["submit", "\($0)/g.json"] }, files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo""#],
                status: 2, message: "invalid JSON at line 1"),
            Case(
                name: "empty file", arguments: { ["submit", "\($0)/g.json"] }, files: ["g.json": ""], status: 2, message: "unexpected end of input"),
            Case(
                name: "not an object", arguments: { ["submit", "\($0)/g.json"] }, files: ["g.json": "[1, 2]"], status: 2,
                message: "a graph must be a JSON object, found array"),
            Case(
                name: "cycle", arguments: { ["submit", "\($0)/g.json"] },
                files: [
                    "g.json":
                        #"{"nodes": {"a": {"procedure": "baton.echo", "input": {"$from": "b"}}, "b": {"procedure": "baton.echo", "after": ["a"]}}}"#
                ],
                status: 2, message: "dependency cycle: "),
            Case(
                name: "unknown procedure", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "acme.nope"}}}"#], status: 2, message: "unknown procedure 'acme.nope'"),
            Case(
                name: "input of the wrong type", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"sum": {"procedure": "baton.add", "input": {"values": "abc"}}}}"#], status: 2,
                message: #"node 'sum', field 'input/values': expected array of number, found string "abc""#),
            Case(
                name: "input of the wrong type, validated", arguments: { ["validate", "\($0)/g.json"] },
                files: [
                    "g.json":
                        #"{"nodes": {"nap": {"procedure": "baton.sleep", "input": {"seconds": [1]}}, "f": {"procedure": "baton.fail", "input": {}}}}"#
                ],
                status: 2,
                message: "invalid graph (2 problems):\n  - node 'nap', field 'input/seconds': expected number, found array\n"
                    + "  - node 'f', field 'input/message': expected string, found nothing"),
            Case(
                name: "SQL in a key", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a'; drop table baton.runs; --": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "invalid node key"),
            Case(
                name: "wrong type", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "after": "b", "priority": "high"}}}"#], status: 2,
                message: "field 'after': must be an array of node keys, found string"),
            Case(
                name: "mutex not an array", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "mutex": "db"}}}"#], status: 2,
                message: "node 'a', field 'mutex': must be an array of mutex names like [\"db\"], found string"),
            Case(
                name: "mutex duplicate", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "mutex": ["db", "db"]}}}"#], status: 2,
                message: "node 'a', field 'mutex/1': names mutex 'db' twice"),
            Case(
                name: "concurrency limit", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "concurrency": {"key": "k", "limit": 0}}}}"#], status: 2,
                message: "node 'a', field 'concurrency/limit': must be an integer from 1 to 1000000, found 0"),
            Case(
                name: "cache ttl", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "cache": {"ttl": "soon"}}}}"#], status: 2,
                message: "node 'a', field 'cache/ttl': 'soon' is not a duration"),
            Case(
                name: "rate limit", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "rate": {"key": "api", "limit": 0, "per": "1s"}}}}"#], status: 2,
                message: "node 'a', field 'rate/limit': must be an integer from 1 to 1000000, found 0"),
            Case(
                name: "rate per", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "rate": {"key": "api", "limit": 5, "per": "often"}}}}"#], status: 2,
                message: "node 'a', field 'rate/per': 'often' is not a duration"),
            Case(
                name: "rate without key", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "rate": {"limit": 5, "per": "1s"}}}}"#], status: 2,
                message: "node 'a', field 'rate/key': is required"),
            Case(
                name: "rate unknown field", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "rate": {"key": "api", "limit": 5, "per": "1s", "burst": 1}}}}"#],
                status: 2, message: "node 'a', field 'rate/burst': unknown field (expected one of: key, limit, per)"),
            Case(
                name: "map rate", arguments: { ["submit", "\($0)/g.json"] },
                files: [
                    "g.json":
                        #"{"nodes": {"a": {"procedure": "baton.echo", "input": [1]}, "m": {"map": {"over": {"$from": "a"}, "procedure": "baton.echo", "rate": {"key": {"$item": ""}, "limit": 2}}}}}"#
                ], status: 2, message: "node 'm', field 'map/rate/per': is required"),
            Case(
                name: "group without nodes", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"g": {"group": {"output": 1}}}}"#], status: 2,
                message: "node 'g', field 'group/nodes': is required"),
            Case(
                name: "reference into a group", arguments: { ["submit", "\($0)/g.json"] },
                files: [
                    "g.json":
                        #"{"nodes": {"g": {"group": {"nodes": {"a": {"procedure": "baton.echo"}}}}, "b": {"procedure": "baton.echo", "input": {"$from": "a"}}}}"#
                ], status: 2, message: "node 'b', field 'input/$from': refers to missing node 'a'"),
            Case(
                name: "map over a string", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"m": {"map": {"over": "abc", "procedure": "baton.echo"}}}}"#], status: 2,
                message: "node 'm', field 'map/over': must be an array or a $from reference to one, found string"),
            Case(
                name: "map with an unknown procedure", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"m": {"map": {"over": [1], "procedure": "acme.nope"}}}}"#], status: 2,
                message: "node 'm', field 'map/procedure': unknown procedure 'acme.nope'"),
            Case(
                name: "bad duration", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "timeout": "5 minutes"}}}"#], status: 2,
                message: "field 'timeout': '5 minutes' is not a duration"),
            Case(
                name: "unknown option", arguments: { _ in ["runs", "--frobnicate"] }, files: [:], status: 2, message: "Unknown option '--frobnicate'"),
            Case(
                name: "bad --limit", arguments: { _ in ["runs", "--limit", "0"] }, files: [:], status: 2, message: "--limit must be from 1 to 10000"),
            Case(name: "bad --status", arguments: { _ in ["runs", "--status", "done"] }, files: [:], status: 2, message: "unknown status 'done'"),
            Case(name: "malformed run id", arguments: { _ in ["show", "x'; select 1; --"] }, files: [:], status: 1, message: "is not a run id"),
            Case(
                name: "unknown run id", arguments: { _ in ["show", "00000000-0000-0000-0000-000000000000"] }, files: [:], status: 1,
                message: "no run with id 00000000-0000-0000-0000-000000000000"),
            Case(
                name: "unreachable database, password hidden",
                arguments: { _ in ["runs", "--database-url", "postgresql://u:hunter2@127.0.0.1:1/baton"] },
                files: [:], status: 1, message: "cannot connect to postgresql://u:***@127.0.0.1:1/baton"),
            Case(
                name: "bad worker concurrency", arguments: { _ in ["worker", "--concurrency", "0"] }, files: [:], status: 2,
                message: "--concurrency must be from 1 to 10000"),
            Case(name: "bad pool name", arguments: { _ in ["worker", "--pools", "GPU"] }, files: [:], status: 2, message: "invalid pool name 'GPU'"),
            Case(
                name: "run without --local", arguments: { ["run", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}}}"#],
                status: 2, message: "needs --local"),
            Case(
                name: "odd Unicode key", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"ключ": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "invalid node key"),
            Case(
                name: "zero-width character in a key", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a​b": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "invalid node key"),
            Case(
                name: "emoji key", arguments: { ["submit", "\($0)/g.json"] }, files: ["g.json": #"{"nodes": {"🚀": {"procedure": "baton.echo"}}}"#],
                status: 2,
                message: "invalid node key"),
            Case(
                name: "null graph", arguments: { ["submit", "\($0)/g.json"] }, files: ["g.json": #"null"#], status: 2,
                message: "a graph must be a JSON object, found null"),
            Case(
                name: "nodes as an array", arguments: { ["submit", "\($0)/g.json"] }, files: ["g.json": #"{"nodes": [{"procedure": "baton.echo"}]}"#],
                status: 2,
                message: "must be an object mapping node keys to nodes, found array"),
            Case(
                name: "no nodes", arguments: { ["submit", "\($0)/g.json"] }, files: ["g.json": #"{"nodes": {}}"#], status: 2,
                message: "must have at least one node"),
            Case(
                name: "duplicate member", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}, "a": {"procedure": "baton.add"}}}"#], status: 2,
                message: "duplicate member name"),
            Case(
                name: "trailing garbage", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}}} extra"#], status: 2,
                message: "unexpected text after the JSON value"),
            Case(
                name: "dangling after", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "after": ["ghost"]}}}"#], status: 2,
                message: "refers to missing node 'ghost'"),
            Case(
                name: "cycle through after", arguments: { ["submit", "\($0)/g.json"] },
                files: [
                    "g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "after": ["b"]}, "b": {"procedure": "baton.echo", "after": ["a"]}}}"#
                ], status: 2,
                message: "dependency cycle"),
            Case(
                name: "self reference through when", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "when": {"$from": "a"}}}}"#], status: 2,
                message: "a node cannot refer to its own output"),
            Case(
                name: "pointer with a bad escape", arguments: { ["submit", "\($0)/g.json"] },
                files: [
                    "g.json":
                        #"{"nodes": {"a": {"procedure": "baton.echo"}, "b": {"procedure": "baton.echo", "input": {"$from": "a", "select": "/x~2"}}}}"#
                ], status: 2,
                message: "'~' must be followed by 0 or 1"),
            Case(
                name: "priority of the wrong type", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "priority": "high"}}}"#], status: 2,
                message: "must be an integer from 0 to 9"),
            Case(
                name: "pool of the wrong type", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "pool": 5}}}"#], status: 2,
                message: "field 'pool': must be a string"),
            Case(
                name: "retry as a string", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "retry": "3"}}}"#], status: 2,
                message: "field 'retry'"),
            Case(
                name: "zero retry attempts", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "retry": {"attempts": 0}}}}"#], status: 2,
                message: "must be an integer from 1 to 1000"),
            Case(
                name: "exponential factor below 1", arguments: { ["submit", "\($0)/g.json"] },
                files: [
                    "g.json":
                        #"{"nodes": {"a": {"procedure": "baton.echo", "retry": {"attempts": 2, "wait": {"exponential": {"initial": "1s", "factor": 0}}}}}}"#
                ], status: 2,
                message: "must be a number from 1 to 100"),
            Case(
                name: "random wait with min above max", arguments: { ["submit", "\($0)/g.json"] },
                files: [
                    "g.json":
                        #"{"nodes": {"a": {"procedure": "baton.echo", "retry": {"attempts": 2, "wait": {"random": {"min": "5s", "max": "1s"}}}}}}"#
                ], status: 2,
                message: "min must not be greater than max"),
            Case(
                name: "negative duration", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "timeout": "-5s"}}}"#], status: 2,
                message: "is negative"),
            Case(
                name: "hexadecimal duration", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "timeout": "0x10s"}}}"#], status: 2,
                message: "is not a duration"),
            Case(
                name: "zero timeout", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "timeout": "0s"}}}"#], status: 2,
                message: "must be longer than 0"),
            Case(
                name: "repeat without equals", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "repeat": {"until": {"select": "/x"}}}}}"#], status: 2,
                message: "field 'repeat/until/equals': is required"),
            Case(
                name: "when that is a string", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "when": "yes"}}}"#], status: 2,
                message: "must be a boolean or a $from reference"),
            Case(
                name: "unknown dependency rule", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "dependencies": "any"}}}"#], status: 2,
                message: #"must be "all-succeeded""#),
            Case(
                name: "condition with an unknown procedure", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "condition": {"procedure": "acme.check"}}}}"#], status: 2,
                message: "unknown procedure 'acme.check'"),
            Case(
                name: "delay until not a date", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.delay", "input": {"until": "tomorrow"}}}}"#], status: 2,
                message: "until must be an ISO 8601 time"),
            Case(
                name: "delay as a condition: one problem", arguments: { ["submit", "\($0)/g.json"] },
                files: [
                    "g.json": #"{"nodes": {"a": {"procedure": "baton.echo", "condition": {"procedure": "baton.delay", "input": {"seconds": 1}}}}}"#
                ], status: 2,
                message: "invalid graph (1 problem):\n  - node 'a', field 'condition/procedure': baton.delay cannot be a condition\n"),
            Case(
                name: "when in defaults", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"defaults": {"when": true}, "nodes": {"a": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "must be set per node, not in defaults"),
            Case(
                name: "input nested too deep", arguments: { ["submit", "\($0)/g.json"] },
                files: [
                    "g.json":
                        #"{"nodes": {"a": {"procedure": "baton.echo", "input": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}}"#
                ], status: 2,
                message: "nesting deeper than 64 levels"),
            Case(
                name: "more nodes than BATON_MAX_NODES", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}, "b": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "has 2 nodes, more than the limit of 1", environment: ["BATON_MAX_NODES": "1"]),
            Case(
                name: "graph bigger than BATON_MAX_GRAPH_BYTES", arguments: { ["submit", "\($0)/g.json"] },
                files: [
                    "g.json":
                        #"{"nodes": {"a": {"procedure": "baton.echo", "input": {"text": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}}}"#
                ], status: 2,
                message: "more than the limit of 100", environment: ["BATON_MAX_GRAPH_BYTES": "100"]),
            Case(
                name: "a bad limit in the environment", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "BATON_MAX_NODES must be a whole number", environment: ["BATON_MAX_NODES": "many"]),
            Case(
                name: "a limit out of its range", arguments: { ["validate", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "BATON_MAX_DEPTH must be a whole number from 2 to 1000, got '1'", environment: ["BATON_MAX_DEPTH": "1"]),
            Case(
                name: "a bad limit for a worker", arguments: { _ in ["worker"] }, files: [:], status: 2,
                message: "BATON_MAX_OUTPUT_BYTES must be a whole number from 1 to 268435456, got 'lots'",
                environment: ["BATON_MAX_OUTPUT_BYTES": "lots"]),
            Case(
                name: "a static input over BATON_MAX_INPUT_BYTES", arguments: { ["submit", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"big": {"procedure": "baton.echo", "input": {"text": "\#(String(repeating: "x", count: 200))"}}}}"#],
                status: 2,
                message: "node 'big', field 'input': is 211 bytes as written, more than the limit of 100 (BATON_MAX_INPUT_BYTES)",
                environment: ["BATON_MAX_INPUT_BYTES": "100"]),
            Case(
                name: "validate: a static input over BATON_MAX_INPUT_BYTES", arguments: { ["validate", "\($0)/g.json"] },
                files: ["g.json": #"{"nodes": {"big": {"procedure": "baton.echo", "input": {"text": "\#(String(repeating: "x", count: 200))"}}}}"#],
                status: 2,
                message: "node 'big', field 'input': is 211 bytes as written", environment: ["BATON_MAX_INPUT_BYTES": "100"]),
            Case(
                name: "a bad log level", arguments: { ["run", "\($0)/g.json", "--local"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "BATON_LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical; got 'loud'",
                environment: ["BATON_LOG_LEVEL": "loud"]),
            // Each with a second bad setting that is checked later, so the command cannot start for real.
            Case(
                name: "a bad log level for the coordinator", arguments: { _ in ["coordinator", "--batch-size", "0"] }, files: [:], status: 2,
                message: "BATON_LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical; got 'loud'",
                environment: ["BATON_LOG_LEVEL": "loud"]),
            Case(
                name: "a bad log level for a worker", arguments: { _ in ["worker"] }, files: [:], status: 2,
                message: "BATON_LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical; got 'loud'",
                environment: ["BATON_LOG_LEVEL": "loud", "BATON_MAX_OUTPUT_BYTES": "lots"]),
            Case(
                name: "empty idempotency key", arguments: { ["submit", "\($0)/g.json", "--idempotency-key", ""] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "--idempotency-key must be 1 to 200 characters"),
            Case(
                name: "negative submit timeout", arguments: { ["submit", "\($0)/g.json", "--wait", "--timeout=-1"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}}}"#], status: 2, message: "--timeout must be a positive number"),
            Case(
                name: "negative submit timeout as its own argument", arguments: { ["submit", "\($0)/g.json", "--wait", "--timeout", "-1"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "--timeout must be a positive number of seconds"),
            Case(
                name: "negative cancel timeout", arguments: { _ in ["cancel", "00000000-0000-0000-0000-000000000000", "--timeout", "-1"] },
                files: [:], status: 2,
                message: "--timeout must not be negative"),
            Case(
                name: "negative retry timeout", arguments: { _ in ["retry", "00000000-0000-0000-0000-000000000000", "--timeout", "-1"] }, files: [:],
                status: 2,
                message: "--timeout must not be negative"),
            Case(
                name: "negative runs limit", arguments: { _ in ["runs", "--limit", "-5"] }, files: [:], status: 2,
                message: "--limit must be from 1 to 10000, got -5"),
            Case(
                name: "negative worker concurrency", arguments: { _ in ["worker", "--concurrency", "-1"] }, files: [:], status: 2,
                message: "--concurrency must be from 1 to 10000, got -1"),
            Case(
                name: "negative worker processes", arguments: { _ in ["worker", "--processes", "-2"] }, files: [:], status: 2,
                message: "--processes must be from 1 to 256, got -2"),
            Case(
                name: "prefetch below the slots", arguments: { _ in ["worker", "--concurrency", "8", "--prefetch", "4"] }, files: [:],
                status: 2, message: "--prefetch must be from --concurrency (8) to 65535, got 4"),
            Case(
                name: "prefetch too large", arguments: { _ in ["worker", "--prefetch", "70000"] }, files: [:], status: 2,
                message: "--prefetch must be from --concurrency (4) to 65535, got 70000"),
            Case(
                name: "negative shutdown grace", arguments: { _ in ["worker", "--shutdown-grace", "-1"] }, files: [:], status: 2,
                message: "--shutdown-grace must not be negative"),
            Case(
                name: "negative heartbeat", arguments: { _ in ["worker", "--heartbeat", "-0.5"] }, files: [:], status: 2,
                message: "--heartbeat must be from 0.1 to 600 seconds"),
            Case(
                name: "negative delivery limit", arguments: { _ in ["worker", "--delivery-limit", "-3"] }, files: [:], status: 2,
                message: "--delivery-limit must be from 1 to 1000"),
            Case(
                name: "negative batch size", arguments: { _ in ["coordinator", "--batch-size", "-1"] }, files: [:], status: 2,
                message: "--batch-size must be at least 1"),
            Case(
                name: "negative lease", arguments: { _ in ["coordinator", "--lease", "-30"] }, files: [:], status: 2,
                message: "--lease must be from 1 to 3600 seconds"),
            Case(
                name: "zero dispatch window", arguments: { _ in ["coordinator", "--dispatch-window", "0"] }, files: [:], status: 2,
                message: "--dispatch-window must be from 1 to 10000000 nodes"),
            Case(
                name: "huge dispatch window", arguments: { _ in ["coordinator", "--dispatch-window", "10000001"] }, files: [:], status: 2,
                message: "--dispatch-window must be from 1 to 10000000 nodes"),
            Case(
                name: "negative local concurrency", arguments: { ["run", "\($0)/g.json", "--local", "--concurrency", "-4"] },
                files: ["g.json": #"{"nodes": {"a": {"procedure": "baton.echo"}}}"#], status: 2,
                message: "--concurrency must be at least 1"),
            Case(
                name: "negative workers window", arguments: { _ in ["workers", "--within", "-5"] }, files: [:], status: 2,
                message: "--within must be a positive number of seconds"),
            Case(name: "non-numeric limit", arguments: { _ in ["runs", "--limit", "lots"] }, files: [:], status: 2, message: "--limit"),
            Case(name: "empty run id", arguments: { _ in ["show", ""] }, files: [:], status: 1, message: "is not a run id"),
        ]

        @Test("is refused with a clear one-line error and nothing stored", arguments: cases)
        func refused(_ c: Case) throws {
            _ = TestCluster()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, text) in c.files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
            let store = try TestCluster.store()
            defer { store.close() }
            let before = try TestCluster.sql().query("select count(*) as n from baton.runs").int(0, "n")

            let result = try TestCluster.cli(c.arguments(directory.path), environment: c.environment)
            #expect(result.status == c.status, "exit \(result.status): \(result.stderr)")
            #expect(result.stderr.hasPrefix("baton: "))
            #expect(result.stderr.contains(c.message), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("hunter2"))
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"))
            #expect(try TestCluster.sql().query("select count(*) as n from baton.runs").int(0, "n") == before)
        }
    }
}
