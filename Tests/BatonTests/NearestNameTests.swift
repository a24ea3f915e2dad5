import Testing

@testable import Baton

@Suite("NearestName: did you mean ...?")
struct NearestNameTests {
    @Test func aTypoFindsTheNameItMeant() {
        let names = ["shop.fetch-prices", "shop.fetch-stores", "shop.report", "baton.echo"]
        #expect(NearestName.suggestion(for: "shop.fetch-price", among: names) == "shop.fetch-prices")
        #expect(NearestName.suggestion(for: "shop.reprot", among: names) == "shop.report")
        #expect(NearestName.suggestion(for: "Baton.Echo", among: names) == "baton.echo", "case does not count")
        #expect(NearestName.suggestion(for: "something.else", among: names) == nil, "nothing close: no guess")
        #expect(NearestName.suggestion(for: "baton.echo", among: names) == nil, "a name is not its own suggestion")
        #expect(NearestName.hint(for: "procdure", among: ["procedure", "input"]) == " (did you mean 'procedure'?)")
        #expect(NearestName.hint(for: "x", among: [String]()) == "")
    }

    @Test func anUnknownProcedureAndAMistypedFieldAreToldTheClosestName() throws {
        let decoder = GraphDecoder(knownProcedures: ["shop.fetch-prices", "baton.echo"])
        let document = #"{"nodes": {"a": {"procedure": "shop.fetch-price", "inptu": {}}}}"#
        do {
            _ = try decoder.decode(Array(document.utf8))
            Issue.record("decoded a graph with an unknown procedure")
        } catch {
            let text = error.problems.map(\.description).joined(separator: "\n")
            #expect(text.contains("unknown procedure 'shop.fetch-price' (did you mean 'shop.fetch-prices'? no worker serves it"), "\(text)")
            #expect(text.contains("unknown field (did you mean 'input'? expected one of:"), "\(text)")
        }
    }

    @Test func aMergedRegistryServesBothAndTheSecondWins() {
        var mine = ProcedureRegistry()
        mine.register(EchoProcedure())
        let merged = ProcedureRegistry.builtIn.merging(mine)
        #expect(merged.names == ProcedureRegistry.builtIn.names)
        #expect(ProcedureRegistry().merging(mine).names == ["baton.echo"])
    }
}

extension NearestNameTests {
    @Test func distancesCountASwapAsOneEdit() {
        func d(_ a: String, _ b: String) -> Int { NearestName.editDistance(Array(a), Array(b), limit: 10) }
        #expect(d("inptu", "input") == 1)
        #expect(d("kitten", "sitting") == 3)
        #expect(d("", "abc") == 3)
        #expect(d("abc", "abc") == 0)
        #expect(NearestName.editDistance(Array("abcdef"), Array("uvwxyz"), limit: 2) == 3, "stops once past the limit")
    }
}
