import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct TokenListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the tokens (never their secrets).")
    @Flag(name: .long, help: "Also list revoked tokens.") var all = false
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let store = try connection.openStore()
        defer { store.close() }
        let tokens = try store.tokens(includeRevoked: all)
        let now = try store.databaseNow()
        if output.json {
            Output.json(.array(tokens.map { $0.json(at: now) }))
            return
        }
        if tokens.isEmpty {
            print("no tokens (make one with `baton token create NAME --scope read`)")
            return
        }
        Output.table(
            ["NAME", "SCOPES", "PREFIX", "STATE", "CREATED", "EXPIRES", "LAST USED"],
            tokens.map { t in
                [
                    t.name, t.scopes.sorted().map(\.rawValue).joined(separator: ","), t.prefix + "…", t.state(at: now),
                    CivilDate.iso8601(t.createdAt), t.expiresAt.map(CivilDate.iso8601) ?? "never", t.lastUsedAt.map(CivilDate.iso8601) ?? "-",
                ]
            })
    }
}
