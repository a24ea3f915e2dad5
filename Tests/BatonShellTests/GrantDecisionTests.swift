import Baton
import Foundation
import Testing

@testable import BatonCoordinator

/// What the coordinator does with a grant of a hold (`GrantDecision`), with no services.
struct GrantDecisionTests {
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    func entry(per: Double?, grantedAt: Date?) -> AdmissionTable.Entry {
        AdmissionTable.Entry(
            seq: 7, runID: "r", key: "a", claims: [AdmissionClaim(name: "rate:api", limit: 5, per: per)], cache: nil, granted: true,
            grantedAt: grantedAt)
    }

    @Test func aGrantOfARunThatEndedIsGivenBack() {
        #expect(GrantDecision.of(entry(per: 10, grantedAt: t0), runLoaded: false, requested: false, now: t0) == .giveBack)
    }

    @Test func aRateGrantToldPastItsSlackIsRevokedAsOfTheSlack() {
        let e = entry(per: 10, grantedAt: t0)  // tokens live 10.1 s: the slack is 0.1 s
        #expect(GrantDecision.rateSlack(e).map { abs($0 - 0.1) < 1e-9 } == true)
        #expect(GrantDecision.of(e, runLoaded: true, requested: true, now: t0.addingTimeInterval(0.05)) == .tell)
        let late = t0.addingTimeInterval(5)
        #expect(GrantDecision.of(e, runLoaded: true, requested: true, now: late) == .revoke(grantedBefore: late.addingTimeInterval(-0.1)))
        #expect(
            GrantDecision.of(e, runLoaded: true, requested: false, now: late) == .tell,
            "a node told already (its commit to come) is told again, not revoked")
    }

    @Test func aGrantWithoutRateClaimsIsToldHoweverLate() {
        let e = entry(per: nil, grantedAt: t0)
        #expect(GrantDecision.rateSlack(e) == nil)
        #expect(GrantDecision.of(e, runLoaded: true, requested: true, now: t0.addingTimeInterval(3600)) == .tell)
        #expect(GrantDecision.of(entry(per: 10, grantedAt: nil), runLoaded: true, requested: true, now: t0.addingTimeInterval(3600)) == .tell)
    }

    /// A grant read from the store for a node whose release the batch to come holds (it was paused after
    /// the grant, and asked again on resume) is stale: telling it would queue the node on a row that
    /// commit deletes (seed 2019 of the webhooks' simulation: two nodes held one mutex).
    @Test func aGrantOfANodeTheUncommittedBatchReleasesIsStale() {
        let e = entry(per: 10, grantedAt: t0)
        #expect(GrantDecision.of(e, runLoaded: true, requested: true, releasing: true, now: t0) == .stale)
        #expect(GrantDecision.of(e, runLoaded: false, requested: false, releasing: true, now: t0) == .giveBack, "a run gone gives back")
        #expect(GrantDecision.of(e, runLoaded: true, requested: true, releasing: false, now: t0) == .tell)
    }
}
