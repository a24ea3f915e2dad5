import Foundation

/// What a command prints for a terminal: how wide, and whether in color. The decisions are pure
/// (`width(flag:environment:windowColumns:)`, `color(isTTY:environment:)`); `current` reads them.
public enum Terminal {
    /// Columns when nothing says (not a terminal, no `COLUMNS`).
    public static let defaultWidth = 100

    /// `--width` if given; else `COLUMNS` if it is a positive whole number; else the window's
    /// columns (`TIOCGWINSZ`) when standard output is a terminal; else `defaultWidth`.
    public static func width(flag: Int?, environment: [String: String], windowColumns: Int?) -> Int {
        if let flag { return flag }
        if let text = environment["COLUMNS"], let columns = Int(text.trimmingCharacters(in: .whitespaces)), columns > 0 { return columns }
        if let windowColumns, windowColumns > 0 { return windowColumns }
        return defaultWidth
    }

    /// Color only on a terminal, and not when `NO_COLOR` is set to anything (https://no-color.org)
    /// or `TERM` is `dumb`.
    public static func color(isTTY: Bool, environment: [String: String]) -> Bool {
        guard isTTY else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    /// Whether standard output is a terminal.
    public static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }

    /// The columns of standard output's window, if it is a terminal that says.
    public static var windowColumns: Int? {
        var size = winsize()
        guard stdoutIsTTY, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// This process's width and color, `flag` being `--width`.
    public static func current(widthFlag flag: Int?) -> (width: Int, color: Bool) {
        let environment = ProcessInfo.processInfo.environment
        return (width(flag: flag, environment: environment, windowColumns: windowColumns), color(isTTY: stdoutIsTTY, environment: environment))
    }
}
