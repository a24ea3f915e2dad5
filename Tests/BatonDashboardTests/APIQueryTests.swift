import Baton
import Testing

@testable import BatonServer

/// Query parameters read as docs/api/openapi.json declares them (Schemathesis sends every value the
/// document allows, and some it does not).
@Suite("API query parameters")
struct APIQueryTests {
    @Test func withinIsADurationAsTheDocumentSays() {
        #expect(APIHandlers.within("500ms") == 0.5)
        #expect(APIHandlers.within("9s") == 9)
        #expect(APIHandlers.within("5m") == 300)
        #expect(APIHandlers.within("2h") == 7200)
        #expect(APIHandlers.within("99999h") == 359_996_400)
        #expect(APIHandlers.within("30") == 30, "seconds, as --within takes them")
        for bad in ["", "0", "-1", "0s", "09s", "100000s", "1.5s", "-1s", "1d", "s", "ms", "1 s", "١s"] {
            #expect(APIHandlers.within(bad) == nil, "\(bad)")
        }
    }

    @Test func anEventIdUpToTwoToTheFiftyThirdIsAValidAfter() throws {
        #expect(
            try APIHandlers.integer("9007199254740991", name: "after", range: 0...APIHandlers.largestEventID, default: 0) == 9_007_199_254_740_991)
        #expect(throws: APIError.self) {
            try APIHandlers.integer("9007199254740992", name: "after", range: 0...APIHandlers.largestEventID, default: 0)
        }
    }

    @Test func aTokensScopesAreTheScopeNamesEachOnce() throws {
        #expect(try APIHandlers.scopes(["read", "submit"]) == [.read, .submit])
        for (names, words) in [
            (["read", "read"], "'read' is given twice"), (["READ"], "'READ' is not a scope"), (["read,submit"], "'read,submit' is not a scope"),
            ([" admin"], "' admin' is not a scope"),
        ] {
            #expect(
                "\(names)", performing: { try APIHandlers.scopes(names) },
                throws: { error in
                    (error as? APIError)?.status == 422 && (error as? APIError)?.message.contains(words) == true
                })
        }
    }
}
