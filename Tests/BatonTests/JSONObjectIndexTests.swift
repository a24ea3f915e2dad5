import Baton
import Testing

/// Large objects look members up by an index, with the same answers as a search from the start.
@Suite("JSONObject: large objects")
struct JSONObjectIndexTests {
    @Test func lookupsSetsAndRemovalsAgreeWithTheMembers() {
        var object = JSONObject((0..<100).map { ("k\($0)", JSON.int(Int64($0))) })
        #expect(object["k0"] == 0)
        #expect(object["k99"] == 99)
        #expect(object["k100"] == nil)
        object["k50"] = "fifty"
        #expect(object["k50"] == "fifty")
        #expect(object.count == 100)
        object["k50"] = nil  // removal shifts the later members: they must still be found
        #expect(object["k50"] == nil)
        #expect(object["k51"] == 51)
        #expect(object["k99"] == 99)
        object["new"] = true
        #expect(object["new"] == true)
        #expect(object.keys.last == "new")
        #expect(object.count == 100)
    }

    @Test func anObjectGrowingPastTheThresholdFindsEveryMember() {
        var object = JSONObject()
        for i in 0..<40 { object["m\(i)"] = .int(Int64(i)) }
        #expect((0..<40).allSatisfy { object["m\($0)"] == .int(Int64($0)) })
        #expect(object.keys == (0..<40).map { "m\($0)" })
    }

    @Test func namesAreComparedScalarByScalarAsJSONDoes() {
        // "é" precomposed and decomposed are equal Swift strings but different JSON names.
        var members: [(key: String, value: JSON)] = (0..<20).map { ("x\($0)", JSON.null) }
        members.append(("\u{E9}", 1))
        members.append(("e\u{301}", 2))
        let object = JSONObject(members)
        #expect(object["\u{E9}"] == 1)
        #expect(object["e\u{301}"] == 2)
    }

    @Test func theFirstOfRepeatedNamesWinsAsASearchWouldFindIt() {
        var members: [(key: String, value: JSON)] = (0..<20).map { ("x\($0)", JSON.null) }
        members.insert(("dup", 1), at: 3)
        members.append(("dup", 2))
        #expect(JSONObject(members)["dup"] == 1)
    }
}
