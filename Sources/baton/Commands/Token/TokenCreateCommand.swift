import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct TokenCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Make a token; print its secret once (standard output), which nothing can show again.")
    @Argument(help: "The token's name: lowercase letters, digits, '_', '.' or '-' (at most 64).") var name: String
    @Option(help: "Comma-separated scopes: read, submit, operate, admin (admin implies the others).") var scope: String
    @Option(help: "How long it lives: a duration such as 90d, 12h or 8w, or 'never'.") var expires = "90d"
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        if let problem = TokenName.problem(name) { throw CLIFailure(problem, exitCode: 2) }
        if case let .failure(problem) = AccessScope.parseList(scope) { throw CLIFailure("--scope: \(problem)", exitCode: 2) }
        if expires != "never", case let .failure(failure) = RetentionText.parse(expires, flag: "--expires") { throw failure }
        let scopes = try AccessScope.parseList(scope).get()
        let lifetime = expires == "never" ? nil : try RetentionText.parse(expires, flag: "--expires").get()
        let store = try connection.openStore()
        defer { store.close() }
        let made: (row: TokenRow, secret: TokenSecret)
        do {
            made = try store.createToken(name: name, scopes: scopes, expiresIn: lifetime, audit: TokenAudit.entry("token.create"))
        } catch let exists as TokenExists {
            throw CLIFailure(exists.description, exitCode: 2)
        }
        if output.json {
            var json = made.row.json(at: Date().timeIntervalSince1970).objectValue ?? JSONObject([])
            json["token"] = .string(made.secret.text)
            Output.json(.object(json))
            return
        }
        print(made.secret.text)
        let until = made.row.expiresAt.map { "expires \(CivilDate.iso8601($0))" } ?? "never expires"
        FileHandle.standardError.write(
            Data(
                "token '\(name)' made with scope(s) \(made.row.scopes.sorted().map(\.rawValue).joined(separator: ", ")); \(until); its secret is above, shown only now\n"
                    .utf8))
    }
}
