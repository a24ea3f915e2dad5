import Foundation
import Testing

@testable import Baton

@Suite("ErrorText: what a thrown error reads as in the run history")
struct ErrorTextTests {
    struct QuotaError: Error {
        let used: Int
        let limit: Int
    }
    enum LookupError: Error { case notFound(id: Int), offline }
    struct Worded: LocalizedError { var errorDescription: String? { "the shop is closed" } }
    struct Described: Error, CustomStringConvertible { var description: String { "described itself" } }

    @Test func anErrorWithWordsOfItsOwnReadsAsThem() {
        #expect(ErrorText.describe(Worded()) == "the shop is closed")
        #expect(ErrorText.describe(Described()) == "described itself")
        #expect(ErrorText.typeName(Worded()) == "ErrorTextTests.Worded")
    }

    @Test func anyOtherReadsAsItsTypeAndFields() {
        #expect(ErrorText.describe(QuotaError(used: 11, limit: 10)) == "QuotaError(used: 11, limit: 10)")
        #expect(ErrorText.describe(LookupError.notFound(id: 3)) == "ErrorTextTests.LookupError.notFound(id: 3)")
        #expect(ErrorText.describe(LookupError.offline) == "ErrorTextTests.LookupError.offline")
        #expect(ErrorText.typeName(QuotaError(used: 1, limit: 2)) == "ErrorTextTests.QuotaError")
    }

    @Test func aPrivateOrLocalTypeShowsNoAddress() {
        struct Local: Error { let code: Int }
        let text = ErrorText.describe(Local(code: 7))
        let name = ErrorText.typeName(Local(code: 7))
        #expect(!text.contains("unknown context") && !text.contains("$"), "\(text)")
        #expect(!name.contains("unknown context") && !name.contains("$"), "\(name)")
        #expect(text == "Local(code: 7)", "\(text)")
        #expect(ErrorText.stripped("A.(unknown context at $5631cb54df70).B") == "A.B")
    }
}
