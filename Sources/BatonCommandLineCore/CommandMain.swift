import ArgumentParser
import Foundation

/// Runs a command-line program: parses the arguments with `root`, runs the command, and turns every
/// error into one clear line on stderr (`program: ...`) and a non-zero exit (2 for a usage error).
public enum CommandMain {
    public static func run(_ root: any ParsableCommand.Type, program: String, arguments: [String]? = nil) async -> Never {
        do {
            var command = try root.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Foundation.exit(0)
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch let failure as CLIFailure {
            FileHandle.standardError.write(Data((program + ": " + failure.message + "\n").utf8))
            Foundation.exit(failure.exitCode)
        } catch {
            let code = root.exitCode(for: error)
            if code == .success {  // --help, --version
                print(root.fullMessage(for: error))
                Foundation.exit(0)
            }
            // A usage error: the parser's first line, then where to read more. Exit 2, like every bad input.
            var message = root.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
            FileHandle.standardError.write(Data("\(program): \(message) (see `\(program) --help`)\n".utf8))
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
