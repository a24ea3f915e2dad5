import Baton
import Testing

@testable import BatonCoordinator

/// Which runs the coordinator loads, keeps and evicts (`RunCache`), with no services.
struct RunCacheTests {
    let run = "6f1c1b9e-2a4b-4c8e-9a51-0c6f2f6d8b11"

    @Test func aRunIsLoadedUnlessEndedFailingOrNotAUUID() {
        var cache = RunCache()
        #expect(cache.shouldLoad(run, failureUnrecorded: false))
        #expect(!cache.shouldLoad(run, failureUnrecorded: true), "its failure is written first")
        #expect(!cache.shouldLoad("not-a-uuid'; drop table", failureUnrecorded: false), "a malformed id never reaches SQL")
        cache.ended(run)
        #expect(!cache.shouldLoad(run, failureUnrecorded: false), "a late report of an ended run needs no lookup")
        cache.reopen(run)
        #expect(cache.shouldLoad(run, failureUnrecorded: false), "a retried run is loaded again")
    }

    @Test func aRunReadBackEndedOrMissingIsNotKeptAndRemembered() {
        var cache = RunCache()
        let answer1 = cache.loaded(run, status: .running)
        #expect(answer1)
        #expect(cache.shouldLoad(run, failureUnrecorded: false))
        let answer2 = cache.loaded(run, status: .succeeded)
        #expect(!answer2)
        #expect(!cache.shouldLoad(run, failureUnrecorded: false))
        let gone = "0d3e1f52-6c1a-4f7b-8e0b-9c2d4a6b8e10"
        let answer3 = cache.loaded(gone, status: nil)
        #expect(!answer3)
        #expect(!cache.shouldLoad(gone, failureUnrecorded: false))
    }

    @Test func aRunIsEvictedOnceACommitRecordedItsEnd() {
        var cache = RunCache()
        let answer4 = cache.committed(run, status: .running)
        #expect(!answer4)
        let answer5 = cache.committed(run, status: nil)
        #expect(!answer5, "not loaded: nothing to evict")
        #expect(cache.shouldLoad(run, failureUnrecorded: false))
        let answer6 = cache.committed(run, status: .failed)
        #expect(answer6)
        #expect(!cache.shouldLoad(run, failureUnrecorded: false))
    }

    @Test func aRequestThatLeavesARunEndedEvictsItOnlyWithNothingInTheBatch() {
        var cache = RunCache()
        let answer7 = cache.requestTaken(run, status: .cancelled, inBatch: true)
        #expect(!answer7, "its commands are committed first")
        let answer8 = cache.requestTaken(run, status: .running, inBatch: false)
        #expect(!answer8)
        let answer9 = cache.requestTaken(run, status: .cancelled, inBatch: false)
        #expect(answer9)
        #expect(!cache.shouldLoad(run, failureUnrecorded: false))
    }

    @Test func givingUpPartitionsForgetsTheirEndedRuns() {
        var cache = RunCache()
        let other = "0d3e1f52-6c1a-4f7b-8e0b-9c2d4a6b8e10"
        cache.ended(run)
        cache.ended(other)
        cache.forget { $0 == run }
        #expect(cache.shouldLoad(run, failureUnrecorded: false))
        #expect(!cache.shouldLoad(other, failureUnrecorded: false))
    }
}
