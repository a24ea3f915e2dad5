import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

/// `baton db-grants ROLE`: the PostgreSQL grants a login of that role needs, as SQL to run as the
/// schema's owner (docs/operations.md, "Database roles").
struct DatabaseGrantsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db-grants",
        abstract:
            "Print the PostgreSQL grants a login of ROLE needs: coordinator, server or read (run them as the schema's owner; again after each migrate)."
    )
    @Argument(help: ArgumentHelp("coordinator, server or read", valueName: "ROLE"))
    var role: String
    @Option(help: ArgumentHelp("The login the grants are for (default: baton_ROLE).", valueName: "NAME"))
    var user: String?
    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if let problem = DatabaseRole.problem(role) { throw ValidationError(problem) }
        if let user, user.isEmpty || user.utf8.count > 63 { throw ValidationError("--user: a PostgreSQL role name is 1 to 63 bytes") }
    }

    func run() throws {
        let store = try connection.openStore()
        defer { store.close() }
        let owner: String
        do { owner = try store.schemaOwner() } catch { throw CLIFailure("\(error)") }
        let statements = DatabaseRole(rawValue: role)!.grants(to: user ?? "baton_\(role)", owner: owner)  // validated above
        if output.json {
            Output.json(["role": .string(role), "owner": .string(owner), "statements": .array(statements.map(JSON.string))])
        } else {
            for statement in statements { print(statement + ";") }
        }
    }
}
