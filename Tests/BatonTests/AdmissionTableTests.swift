import Baton
import Testing

@Suite("AdmissionTable: mutex and concurrency grants")
struct AdmissionTableTests {
    static func granted(_ changes: [AdmissionTable.Change]) -> [String] {
        changes.compactMap {
            if case let .granted(e) = $0 { return "\(e.runID)/\(e.key)" }; return nil
        }
    }

    static func mutex(_ key: String, _ names: String...) -> AdmissionRequest {
        AdmissionRequest(key: key, claims: names.map(AdmissionClaim.mutex))
    }

    @Test func oneHolderAtATimeFirstComeFirstServed() {
        var t = AdmissionTable()
        #expect(Self.granted(t.request(runID: "r1", Self.mutex("a", "db"))) == ["r1/a"])
        #expect(Self.granted(t.request(runID: "r2", Self.mutex("b", "db"))).isEmpty)
        #expect(Self.granted(t.request(runID: "r3", Self.mutex("c", "db"))).isEmpty)
        #expect(t.holders(of: "mutex/db") == 1)
        #expect(Self.granted(t.release(runID: "r1", key: "a")) == ["r2/b"])
        #expect(Self.granted(t.release(runID: "r2", key: "b")) == ["r3/c"])
        #expect(Self.granted(t.release(runID: "r3", key: "c")).isEmpty)
        #expect(t.all.isEmpty)
    }

    @Test func aRequestIsGrantedAllOrNone() {
        var t = AdmissionTable()
        _ = t.request(runID: "r", Self.mutex("holder", "b"))
        #expect(Self.granted(t.request(runID: "r", Self.mutex("both", "a", "b"))).isEmpty)
        #expect(t.holders(of: "mutex/a") == 0, "nothing is held in part")
        #expect(Self.granted(t.release(runID: "r", key: "holder")) == ["r/both"])
        #expect(t.holders(of: "mutex/a") == 1 && t.holders(of: "mutex/b") == 1)
    }

    @Test func oppositeOrdersCannotDeadlock() {
        var t = AdmissionTable()
        #expect(Self.granted(t.request(runID: "r", Self.mutex("x", "a", "b"))) == ["r/x"])
        #expect(Self.granted(t.request(runID: "r", Self.mutex("y", "b", "a"))).isEmpty)
        #expect(Self.granted(t.release(runID: "r", key: "x")) == ["r/y"])
    }

    @Test func aLaterWaiterDoesNotOvertakeAnEarlierOneOnTheSameCategory() {
        var t = AdmissionTable()
        _ = t.request(runID: "r", Self.mutex("holds-b", "b"))
        _ = t.request(runID: "r", Self.mutex("wants-ab", "a", "b"))  // waits for b
        #expect(Self.granted(t.request(runID: "r", Self.mutex("wants-a", "a"))).isEmpty, "a is free, but an earlier waiter wants it")
        #expect(Self.granted(t.request(runID: "r", Self.mutex("wants-c", "c"))) == ["r/wants-c"], "an unrelated category goes at once")
        #expect(Self.granted(t.release(runID: "r", key: "holds-b")) == ["r/wants-ab"])
        #expect(Self.granted(t.release(runID: "r", key: "wants-ab")) == ["r/wants-a"])
    }

    @Test func concurrencyLimitsPerKey() {
        var t = AdmissionTable()
        func ask(_ key: String, _ customer: String) -> [String] {
            Self.granted(t.request(runID: "r", AdmissionRequest(key: key, claims: [.concurrency(customer, limit: 2)])))
        }
        #expect(ask("a1", "acme") == ["r/a1"])
        #expect(ask("a2", "acme") == ["r/a2"])
        #expect(ask("a3", "acme").isEmpty)
        #expect(ask("g1", "globex") == ["r/g1"])
        #expect(t.holders(of: "concurrency/acme") == 2)
        #expect(Self.granted(t.release(runID: "r", key: "a1")) == ["r/a3"])
    }

    @Test func aWithdrawnWaiterIsNeverGranted() {
        var t = AdmissionTable()
        _ = t.request(runID: "r", Self.mutex("a", "db"))
        _ = t.request(runID: "r", Self.mutex("b", "db"))
        _ = t.request(runID: "r", Self.mutex("c", "db"))
        #expect(t.release(runID: "r", key: "b").count == 1, "only the release: nothing can go yet")
        #expect(Self.granted(t.release(runID: "r", key: "a")) == ["r/c"])
    }

    @Test func aSecondRequestOfTheSameNodeIsIgnoredAndReleaseAllFreesARun() {
        var t = AdmissionTable()
        _ = t.request(runID: "r1", Self.mutex("a", "db"))
        #expect(t.request(runID: "r1", Self.mutex("a", "db")).isEmpty)
        _ = t.request(runID: "r1", Self.mutex("b", "other"))
        _ = t.request(runID: "r2", Self.mutex("c", "db"))
        #expect(Self.granted(t.releaseAll(runID: "r1")) == ["r2/c"])
        #expect(t.all.map(\.key) == ["c"])
    }

    @Test func aRestoredTableKeepsHoldersOrderAndNumbers() {
        var t = AdmissionTable()
        _ = t.request(runID: "r", Self.mutex("a", "db"))
        _ = t.request(runID: "r", Self.mutex("b", "db"))
        _ = t.request(runID: "r", Self.mutex("c", "db"))
        var restored = AdmissionTable(entries: t.all.reversed())
        #expect(restored.grantWaiting().isEmpty)
        #expect(restored.nextSeq == t.nextSeq)
        #expect(restored.holders(of: "mutex/db") == 1)
        #expect(Self.granted(restored.release(runID: "r", key: "a")) == ["r/b"])
    }
}
