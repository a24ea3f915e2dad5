import Baton
import Foundation
import Testing

@Suite("RunPartition")
struct RunPartitionTests {
    @Test func aRunsPartitionIsItsFirst32BitsModuloTheCount() {
        #expect(RunPartition.of("0000000a-0000-4000-8000-000000000000", count: 64) == 10)
        #expect(RunPartition.of("ffffffff-0000-4000-8000-000000000000", count: 64) == Int(UInt32.max % 64))
        #expect(RunPartition.of("FFFFFFFF-0000-4000-8000-000000000000", count: 1000) == Int(UInt32.max % 1000))
        #expect(RunPartition.of("12345678-9abc-4def-8000-000000000000", count: 1) == 0)
        #expect(RunPartition.of("not a uuid", count: 64) == 0)
        #expect(RunPartition.of("", count: 64) == 0)
    }

    /// Random (version 4) ids spread evenly: no partition gets twice its share of 64,000 runs.
    @Test func randomIdsSpreadEvenly() {
        var counts = [Int](repeating: 0, count: 64)
        for _ in 0..<64_000 { counts[RunPartition.of(UUID().uuidString, count: 64)] += 1 }
        #expect(counts.min()! > 500 && counts.max()! < 2000, "\(counts)")
    }
}
