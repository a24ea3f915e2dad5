import ArgumentParser

/// `baton token …`: the API's bearer tokens (docs/api.md, "Tokens and scopes").
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Make, list and revoke the API's bearer tokens (the secret is shown once; only its hash is stored).",
        subcommands: [TokenCreateCommand.self, TokenListCommand.self, TokenRevokeCommand.self])
}
