// libFuzzer target: `cgroup.events` as the freezer mechanism reads it (`AppCgroupFiles.parseEvents`) to confirm a
// freeze. One input is the file's text. Its answer is checked against the rule it implements: `populated` and
// `frozen` are the last line "KEY 0" or "KEY 1" of each, and nil when either is missing.

@testable import RunwayProcesses

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCgroupEvents(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let parsed = AppCgroupFiles.parseEvents(bytes)
    let expected = referenceEvents(Array(bytes))
    precondition(
        parsed?.populated == expected?.populated && parsed?.frozen == expected?.frozen,
        "parsed \(String(describing: parsed)), the rule gives \(String(describing: expected))"
    )
    return 0
}

/// The rule, written plainly over lines of text.
private func referenceEvents(_ bytes: [UInt8]) -> (populated: Bool, frozen: Bool)? {
    var values: [String: Bool] = [:]
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
        for (key, value) in [("populated", true), ("frozen", true), ("populated", false), ("frozen", false)]
        where Array(line) == Array("\(key) \(value ? 1 : 0)".utf8) {
            values[key] = value
        }
    }
    guard let populated = values["populated"], let frozen = values["frozen"] else { return nil }
    return (populated: populated, frozen: frozen)
}
