import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct TokenRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Revoke a token: requests made with it are refused from now on.")
    @Argument(help: "The token's name.") var name: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let store = try connection.openStore()
        defer { store.close() }
        guard try store.revokeToken(name, audit: TokenAudit.entry("token.revoke")) else {
            throw CLIFailure("no token named '\(name)' that is not revoked (see `baton token list --all`)", exitCode: 2)
        }
        if output.json { Output.json(["name": .string(name), "revoked": true]) } else { print("token \(name) revoked") }
    }
}
