import Baton
import BatonPostgres
import BatonSimulation
import BatonStore
import Foundation
import Testing

/// The contract of admission holds and rate tokens: the same on the real `Store` and on `MemoryStore`.
extension StoreContractTests {
    /// Holds are requested and released by batch and granted, first come first served and all or
    /// none, by `grantWaiting`, which announces its grants; the run's owner reads them until told.
    @Test func holdsAreRequestedGrantedToldAndReleased() throws {
        let graph = try Self.graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}}}"#)
        var seen: [[String]] = []
        try ContractBackend.grantingAlone {
            try Self.onBoth(graph) { backend, id in
                let store = backend.store
                let listener = try backend.connect()
                defer { listener.close() }
                try listener.listenForWork()
                let db = AdmissionClaim(name: "db-\(id)", limit: 1)
                func request(_ key: String) -> HoldChange {
                    .insert(
                        runID: id,
                        request: AdmissionRequest(
                            key: key, claims: [db, AdmissionClaim(name: "k-\(id)", limit: 3)],
                            cache: key == "b" ? CacheLookup(procedure: "p", input: "{}", ttl: 90.5) : nil))
                }
                func holds() throws -> String {
                    try store.loadHolds().filter { $0.runID == id }
                        .map { "\($0.key) \($0.claims.count) \($0.cache.map { "\($0.ttl)" } ?? "-") \($0.granted)" }.joined(separator: ", ")
                }
                func write(_ changes: [HoldChange]) throws -> String {
                    _ = try store.apply([], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: changes, now: Date())
                    let granted = try store.grantWaiting(now: Date()).granted.filter { $0.runID == id }.map(\.key)
                    let untold = try store.untoldGrants().filter { $0.runID == id }
                    return "\(try holds()) | granted \(granted) | untold \(untold.map(\.key))"
                }
                var lines = [try write([request("a"), request("b")])]
                let aSeq = try #require(try store.untoldGrants().first { $0.runID == id }?.seq)
                lines.append(try write([.told(runID: id, seq: aSeq)]))
                lines.append(try write([.release(runID: id, key: "a")]))
                var heard: [StoreNotification] = []
                let deadline = Date().addingTimeInterval(5)
                while !heard.contains(.grants) && Date() < deadline { heard += try listener.notifications(timeout: 0.2) }
                lines.append("heard grants: \(heard.contains(.grants))")
                lines.append(try write([.release(runID: id, key: "b"), request("b"), .release(runID: id, key: "b")]))
                seen.append(lines)
            }
        }
        #expect(seen[0] == seen[1])
        #expect(
            seen[1] == [
                "a 2 - true, b 2 90.5 false | granted [\"a\"] | untold [\"a\"]",
                "a 2 - true, b 2 90.5 false | granted [] | untold []",
                "b 2 90.5 true | granted [\"b\"] | untold [\"b\"]",
                "heard grants: true",
                "b 2 90.5 true | granted [\"b\"] | untold [\"b\"]",
            ], "every release sees the rows from before the statement: the second does not delete the new request")
    }

    /// Rate tokens: `grantWaiting` grants at most the limit per window, highest priority first, says
    /// when the next token is due, counts a token from when its grant is told (and as long as it is not),
    /// and frees a revoked grant's token (the node keeps its place in line); the same on both.
    @Test func rateTokensAreTakenCountedAndFreedByARevokedGrant() throws {
        let graph = try Self.graph(
            #"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}, "c": {"procedure": "p"}, "d": {"procedure": "p"}}}"#)
        var seen: [[String]] = []
        try ContractBackend.grantingAlone {
            try Self.onBoth(graph) { backend, id in
                let store = backend.store
                let t0 = Date()
                let rate = AdmissionClaim.rate("k-\(id)", limit: 2, per: 1)
                func request(_ key: String, priority: Int = 0) -> HoldChange {
                    .insert(runID: id, request: AdmissionRequest(key: key, claims: [rate], priority: priority))
                }
                func grant(at seconds: Double) throws -> String {
                    let grants = try store.grantWaiting(now: t0.addingTimeInterval(seconds))
                    let next = grants.nextTokenAt.map { String(format: "%.3f", $0.timeIntervalSince(t0)) } ?? "none"
                    return "at \(seconds): granted \(grants.granted.filter { $0.runID == id }.map(\.key)) next \(next)"
                }
                _ = try store.apply(
                    [], heartbeats: [], handledRequests: [], confirmedBatch: nil,
                    holds: [request("a"), request("b"), request("c"), request("d", priority: 9)], now: t0)
                var lines = [try grant(at: 0)]
                // Telling d at 0.3 takes its token again then: it counts from when d is queued.
                let d = try #require(try store.untoldGrants().first { $0.runID == id && $0.key == "d" })
                _ = try store.apply(
                    [], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [.told(runID: id, seq: d.seq)],
                    now: t0.addingTimeInterval(0.3))
                lines.append(try grant(at: 0.5))
                let a = try #require(try store.untoldGrants().first { $0.runID == id && $0.key == "a" })
                let young = try store.revokeGrant(a, grantedBefore: t0.addingTimeInterval(-0.1))
                let old = try store.revokeGrant(a, grantedBefore: t0.addingTimeInterval(0.4))
                lines.append("revoked a: young \(young), old \(old), again \(try store.revokeGrant(a, grantedBefore: t0.addingTimeInterval(0.4)))")
                lines.append(try grant(at: 0.6))
                // Told at once, as its coordinator does (a grant not told keeps its tokens counted).
                let a2 = try #require(try store.untoldGrants().first { $0.runID == id && $0.key == "a" })
                _ = try store.apply(
                    [], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [.told(runID: id, seq: a2.seq)],
                    now: t0.addingTimeInterval(0.6))
                for at in [1.1, 1.45, 1.75] { lines.append(try grant(at: at)) }
                seen.append(lines)
            }
        }
        #expect(seen[0] == seen[1])
        #expect(
            seen[1] == [
                // At 0.5, a (not told yet) counts as taken then, d (told at 0.3) until 1.4.
                "at 0.0: granted [\"d\", \"a\"] next 1.100", "at 0.5: granted [] next 1.400", "revoked a: young false, old true, again false",
                "at 0.6: granted [\"a\"] next 1.400", "at 1.1: granted [] next 1.400", "at 1.45: granted [\"b\"] next 1.700",
                "at 1.75: granted [\"c\"] next none",
            ])
    }

    /// A grant told later than its tokens' lifetime (its coordinator stalled or its commit was retried
    /// between the grant and the commit that queues the node) keeps its tokens counted until it is told,
    /// as if taken at every grant since; telling takes them again then. Before, they expired untold, the
    /// next waiters were granted, and the late commit queued 4 nodes at once at a limit of 2 (seeds 179
    /// and 580, a clock jump between grant and commit). The same on both.
    @Test func aGrantToldLateKeepsItsTokensCountedUntilTold() throws {
        let graph = try Self.graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}, "c": {"procedure": "p"}}}"#)
        var seen: [[String]] = []
        try ContractBackend.grantingAlone {
            try Self.onBoth(graph) { backend, id in
                let store = backend.store
                let t0 = Date()
                let rate = AdmissionClaim.rate("late-\(id)", limit: 2, per: 1)
                func grant(at seconds: Double) throws -> String {
                    let grants = try store.grantWaiting(now: t0.addingTimeInterval(seconds))
                    let next = grants.nextTokenAt.map { String(format: "%.3f", $0.timeIntervalSince(t0)) } ?? "none"
                    return "at \(seconds): granted \(grants.granted.filter { $0.runID == id }.map(\.key)) next \(next)"
                }
                _ = try store.apply(
                    [], heartbeats: [], handledRequests: [], confirmedBatch: nil,
                    holds: ["a", "b", "c"].map { .insert(runID: id, request: AdmissionRequest(key: $0, claims: [rate])) }, now: t0)
                var lines = [try grant(at: 0), try grant(at: 2)]
                let told = try store.untoldGrants().filter { $0.runID == id }.map { HoldChange.told(runID: id, seq: $0.seq) }
                _ = try store.apply([], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: told, now: t0.addingTimeInterval(2.5))
                for at in [3.0, 3.65] { lines.append(try grant(at: at)) }
                seen.append(lines)
            }
        }
        #expect(seen[0] == seen[1])
        #expect(
            seen[1] == [
                "at 0.0: granted [\"a\", \"b\"] next 1.100", "at 2.0: granted [] next 3.100", "at 3.0: granted [] next 3.600",
                "at 3.65: granted [\"c\"] next none",
            ])
    }
}
