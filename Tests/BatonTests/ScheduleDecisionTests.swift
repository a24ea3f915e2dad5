import Baton
import Testing

/// What a schedule fires, with a fake clock: a period of 10 s from 0, due times 10, 20, 30, ...
@Suite("ScheduleDecision")
struct ScheduleDecisionTests {
    private func decision(_ catchUp: CatchUpRule, _ overlap: OverlapRule = .allow) -> ScheduleDecision {
        ScheduleDecision(timing: .every(seconds: 10, anchor: 0), catchUp: catchUp, overlap: overlap)
    }

    @Test func aNewScheduleStartsFromNow() {
        let step = decision(.all).step(ScheduleState(nextDue: nil), now: 15, previousRunning: false)
        #expect(step.fire.isEmpty && step.state.nextDue == 20)
    }

    @Test func onTimeFiresTheDueTimeAndMovesOn() {
        let step = decision(.none).step(ScheduleState(nextDue: 20), now: 20.3, previousRunning: false)
        #expect(step.fire == [20] && step.skipped.isEmpty && step.state.nextDue == 30)
        #expect(decision(.none).step(ScheduleState(nextDue: 30), now: 29.9, previousRunning: false).isIdle)
    }

    @Test func catchUpAllFiresEveryMissedTime() {
        let step = decision(.all).step(ScheduleState(nextDue: 20), now: 55, previousRunning: false)
        #expect(step.fire == [20, 30, 40, 50] && step.state.nextDue == 60)
    }

    @Test func catchUpLastFiresTheNewestOnly() {
        let step = decision(.last).step(ScheduleState(nextDue: 20), now: 1000, previousRunning: false)
        #expect(step.fire == [1000] && step.skipped.count == 98 && step.state.nextDue == 1010)
    }

    @Test func catchUpNoneFiresOnlyWhatIsNotLate() {
        let hourly = ScheduleDecision(timing: .every(seconds: 3600, anchor: 0), catchUp: .none, overlap: .allow)
        let late = hourly.step(ScheduleState(nextDue: 3600), now: 3 * 3600 + ScheduleDecision.lateness + 1, previousRunning: false)
        #expect(late.fire.isEmpty && late.skipped.map(\.due) == [3600, 7200, 10800] && late.state.nextDue == 14400)
        let recent = hourly.step(ScheduleState(nextDue: 3600), now: 3 * 3600 + 30, previousRunning: false)
        #expect(recent.fire == [10800] && recent.skipped.map(\.due) == [3600, 7200])
    }

    /// After a long downtime `all` fires at most the bound, the newest, and counts the rest.
    @Test func catchUpAllIsBounded() {
        let step = decision(.all).step(ScheduleState(nextDue: 10), now: 1_000_000, previousRunning: false)
        #expect(step.fire.count == ScheduleDecision.catchUpBound)
        #expect(step.fire.last == 1_000_000 && step.state.nextDue == 1_000_010)
        #expect(step.uncounted > 99_000)
    }

    @Test func overlapSkipDoesNotFireWhileThePreviousRunGoes() {
        let step = decision(.none, .skip).step(ScheduleState(nextDue: 20), now: 20, previousRunning: true)
        #expect(step.fire.isEmpty && step.skipped == [ScheduleSkip(due: 20, reason: "previous run still going (overlap skip)")])
        #expect(step.state.nextDue == 30)
        // Catch-up all under skip fires one: the others would overlap it.
        let all = decision(.all, .skip).step(ScheduleState(nextDue: 20), now: 40, previousRunning: false)
        #expect(all.fire == [20] && all.skipped.map(\.due) == [30, 40])
    }

    @Test func overlapQueueKeepsOneTimeUntilThePreviousRunEnds() {
        let d = decision(.last, .queue)
        let waiting = d.step(ScheduleState(nextDue: 20), now: 20, previousRunning: true)
        #expect(waiting.fire.isEmpty && waiting.state == ScheduleState(nextDue: 30, queued: 20))
        // A newer due time replaces the waiting one.
        let replaced = d.step(waiting.state, now: 30, previousRunning: true)
        #expect(replaced.state == ScheduleState(nextDue: 40, queued: 30) && replaced.skipped.map(\.due) == [20])
        // Still going, nothing new due: nothing happens.
        #expect(d.step(replaced.state, now: 35, previousRunning: true).isIdle)
        // The previous run ended: the waiting time fires.
        let fired = d.step(replaced.state, now: 36, previousRunning: false)
        #expect(fired.fire == [30] && fired.state == ScheduleState(nextDue: 40, queued: nil))
    }

    @Test func overlapAllowFiresRegardless() {
        let step = decision(.all, .allow).step(ScheduleState(nextDue: 20), now: 30, previousRunning: true)
        #expect(step.fire == [20, 30])
    }
}
