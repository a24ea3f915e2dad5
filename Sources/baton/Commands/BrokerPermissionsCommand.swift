import ArgumentParser
import Baton
import BatonAMQP
import BatonCommandLine

/// `baton broker-permissions ROLE`: the least a RabbitMQ user of that role needs.
struct BrokerPermissionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broker-permissions",
        abstract: "Print the RabbitMQ permissions (configure, write, read) a user of ROLE needs: coordinator, worker, client or migrate.")
    @Argument(help: ArgumentHelp("coordinator, worker, client or migrate", valueName: "ROLE"))
    var role: String
    @Option(help: ArgumentHelp("The user named in the rabbitmqctl line (default: baton-ROLE).", valueName: "NAME"))
    var user: String?
    @Option(help: ArgumentHelp("The vhost named in the rabbitmqctl line (default: /).", valueName: "VHOST"))
    var vhost = "/"
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let problem = BrokerRole.problem(role) { throw ValidationError(problem) }
    }

    func run() throws {
        let permissions = BrokerRole(rawValue: role)!.permissions  // validated above
        if output.json {
            Output.json([
                "configure": .string(permissions.configure), "write": .string(permissions.write), "read": .string(permissions.read),
            ])
        } else {
            let words = [user ?? "baton-\(role)", permissions.configure, permissions.write, permissions.read]
            print("rabbitmqctl set_permissions -p \(Self.quoted(vhost)) " + words.map(Self.quoted).joined(separator: " "))
        }
    }

    /// `text` as one shell word, in single quotes.
    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
}
