import BatonCommandLine
import Testing

/// `Terminal`: how wide a command draws, and whether in color.
@Suite("Terminal")
struct TerminalTests {
    @Test func theWidthComesFromTheFlagThenCOLUMNSThenTheWindow() {
        #expect(Terminal.width(flag: 60, environment: ["COLUMNS": "120"], windowColumns: 200) == 60)
        #expect(Terminal.width(flag: nil, environment: ["COLUMNS": "120"], windowColumns: 200) == 120)
        #expect(Terminal.width(flag: nil, environment: ["COLUMNS": " 90 "], windowColumns: nil) == 90)
        #expect(Terminal.width(flag: nil, environment: ["COLUMNS": "wide"], windowColumns: 200) == 200)
        #expect(Terminal.width(flag: nil, environment: ["COLUMNS": "0"], windowColumns: nil) == Terminal.defaultWidth)
        #expect(Terminal.width(flag: nil, environment: [:], windowColumns: 0) == 100)
    }

    @Test func colorOnlyOnATerminalWithoutNO_COLOR() {
        #expect(Terminal.color(isTTY: true, environment: [:]))
        #expect(Terminal.color(isTTY: true, environment: ["NO_COLOR": ""]), "an empty NO_COLOR does not count")
        #expect(!Terminal.color(isTTY: true, environment: ["NO_COLOR": "1"]))
        #expect(!Terminal.color(isTTY: true, environment: ["TERM": "dumb"]))
        #expect(!Terminal.color(isTTY: false, environment: ["TERM": "xterm-256color"]))
    }
}
