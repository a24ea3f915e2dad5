import Foundation
import Testing

@testable import Baton

@Suite("API access: scopes, token names and secrets")
struct AccessScopeTests {
    @Test func aListOfScopesParsesAndAdminImpliesTheOthers() throws {
        let scopes = try AccessScope.parseList("read, Submit").get()
        #expect(scopes == [.read, .submit])
        #expect(AccessScope.read.isGranted(by: scopes) && !AccessScope.operate.isGranted(by: scopes))
        #expect(AccessScope.allCases.allSatisfy { $0.isGranted(by: [.admin]) })
        #expect(!AccessScope.admin.isGranted(by: [.read, .submit, .operate]))
    }

    @Test(arguments: ["", " ", "read,", "write", "read,admin,root"])
    func aBadListNamesWhatIsWrongInOneLine(_ text: String) {
        guard case let .failure(problem) = AccessScope.parseList(text) else {
            Issue.record("'\(text)' parsed")
            return
        }
        #expect(!problem.description.contains("\n"))
        #expect(problem.description.contains("read, submit, operate or admin"))
    }

    @Test func tokenNamesAreShortLowercaseWords() {
        #expect(TokenName.problem("ci-bot.main_2") == nil)
        #expect(TokenName.problem("")?.contains("1 to 64") == true)
        #expect(TokenName.problem(String(repeating: "a", count: 65))?.contains("1 to 64") == true)
        #expect(TokenName.problem("CI")?.contains("lowercase") == true)
        #expect(TokenName.problem("-ci")?.contains("starting with") == true)
        #expect(TokenName.problem("ci bot") != nil)
    }

    @Test func aSecretIsBase64URLOf256RandomBitsAndNeverRepeats() throws {
        let secrets = (0..<200).map { _ in TokenSecret.generate() }
        #expect(Set(secrets.map(\.text)).count == 200)
        for secret in secrets {
            #expect(secret.isWellFormed, "\(secret.text)")
            #expect(secret.prefix.count == 14 && secret.text.hasPrefix(secret.prefix))
            // Foundation's base64 of the same bytes, made URL-safe and unpadded, gives the same text.
            var base64 = String(secret.text.dropFirst(TokenSecret.marker.count))
            base64 = base64.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
            let bytes = try #require(Data(base64Encoded: base64), "\(secret.text)")
            #expect(bytes.count == 32)
            #expect(TokenSecret.base64URL(Array(bytes)) == String(secret.text.dropFirst(TokenSecret.marker.count)))
        }
        #expect(!TokenSecret(text: "baton_short").isWellFormed)
        #expect(!TokenSecret(text: "baton_" + String(repeating: "+", count: 43)).isWellFormed)
    }
}
