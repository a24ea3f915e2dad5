import Baton
import BatonStore
import Testing

/// `--where` filters: every term read, every bad one named, and the SQL each becomes (no services).
@Suite struct RunFilterTests {
    static func problem(_ values: [String]) -> String? {
        if case .failure(let problem) = RunFilter.parse(values) { return problem.description }
        return nil
    }

    @Test func termsCommaSeparatedAndRepeated() throws {
        let filter = try RunFilter.parse([
            "status=failed, name=nightly-*", "since=1.5h,procedure=acme.fetch", "error_type=QuotaError,schedule=nightly",
        ]).get()
        #expect(filter.status == .failed && filter.name?.like == "nightly-%" && filter.since == 5400)
        #expect(filter.procedure == "acme.fetch" && filter.errorType == "QuotaError" && filter.schedule == "nightly")
        #expect(filter.text == "status=failed,name=nightly-*,since=1.5h,procedure=acme.fetch,error_type=QuotaError,schedule=nightly")
        #expect(try RunFilter.parse(["since=7d"]).get().since == 604_800)
        #expect(try RunFilter.parse(["since=2w"]).get().since == 1_209_600)
    }

    @Test func badTermsNamed() {
        #expect(
            Self.problem([]) == "--where is empty: give one or more of status=, name=, since=, procedure=, error_type=, schedule= separated by commas"
        )
        #expect(Self.problem([" , "])?.hasPrefix("--where is empty") == true)
        #expect(
            Self.problem(["failed"])
                == "--where: 'failed' is not KEY=VALUE (one or more of status=, name=, since=, procedure=, error_type=, schedule= separated by commas, such as status=failed)"
        )
        #expect(
            Self.problem(["state=failed"])
                == "--where: unknown term 'state' in 'state=failed' (known: status, name, since, procedure, error_type, schedule)")
        #expect(Self.problem(["status=done"]) == "--where: status 'done' is not one of pending, running, succeeded, failed, cancelled")
        #expect(Self.problem(["status=failed", "status=cancelled"]) == "--where: status= is given twice; give each term once")
        #expect(Self.problem(["procedure="]) == "--where: procedure= has no value")
        #expect(Self.problem(["name=a[b]"]) == "--where: name: the name glob 'a[b]' has '[' or ']': only `*` and `?` are special")
        for bad in ["1y", "h", "0.5s", "-1h", "1e3s", "soon"] {
            #expect(Self.problem(["since=\(bad)"]) == "--where: since: '\(bad)' is not a duration (a number with s, m, h, d or w, such as 2h or 7d)")
        }
        #expect(Self.problem(["name=\u{7}"]) == "--where: name= must be at most 200 characters with no control character")
    }

    @Test func statusTheActionCannotTakeIsRefused() throws {
        #expect(
            try RunFilter.parse(["status=succeeded"]).get().problem(for: .retry)?.description
                == "--where: status=succeeded matches no run retry takes: it takes only failed or cancelled runs")
        #expect(
            try RunFilter.parse(["status=failed"]).get().problem(for: .cancel)?.description
                == "--where: status=failed matches no run cancel takes: it takes only pending or running runs")
        #expect(try RunFilter.parse(["status=running"]).get().problem(for: .cancel) == nil)
        #expect(try RunFilter.parse(["name=x"]).get().problem(for: .retry) == nil)
    }

    @Test func conditionNumbersItsParameters() throws {
        let filter = try RunFilter.parse(["name=a_*,since=1h,error_type=E,procedure=p,schedule=s"]).get()
        let (sql, parameters) = filter.condition(first: 5)
        #expect(parameters == [#"a\_%"#, "3600.0", "p", "E", "schedule:s:"])
        #expect(sql.contains("r.name like $5") && sql.contains("$6::float8") && sql.contains("n.procedure = $7") && sql.contains("n.error_type = $8"))
        #expect(sql.contains("starts_with(k.key, $9)"))
        #expect(try RunFilter.parse(["status=failed"]).get().condition(first: 2) == ("r.status = $2", ["failed"]))
    }
}
