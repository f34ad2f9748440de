import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

/// `AppLogRing`, the bounded memory of one run of an app's output.
@Suite("AppLogRing: bounded by lines and bytes")
struct AppLogRingTests {
    static func line(_ text: String, at nanoseconds: Int64 = 0) -> AppLogLine {
        AppLogLine(time: WallTime(nanosecondsSinceEpoch: nanoseconds), stream: .stdout, text: text)
    }

    @Test("Beyond the line bound the oldest lines go, counted with their bytes")
    func lineBound() {
        var ring = AppLogRing(lineLimit: 3, byteLimit: 1_000)
        for index in 0..<10 { ring.append(Self.line("l\(index)")) }
        #expect(ring.all.map(\.text) == ["l7", "l8", "l9"])
        #expect(ring.droppedLines == 7 && ring.droppedBytes == 14 && ring.bytes == 6)
        #expect(ring.last(2).map(\.text) == ["l8", "l9"])
        #expect(ring.last(0).isEmpty && ring.last(50).count == 3)
    }

    @Test("Beyond the byte bound the oldest lines go; a line longer than the bound is cut with a marker")
    func byteBound() {
        var ring = AppLogRing(lineLimit: 100, byteLimit: 10)
        ring.append(Self.line("aaaa"))
        ring.append(Self.line("bbbb"))
        ring.append(Self.line("cccc"))
        #expect(ring.all.map(\.text) == ["bbbb", "cccc"] && ring.bytes == 8 && ring.droppedLines == 1)
        var wide = AppLogRing(lineLimit: 100, byteLimit: 100)
        wide.append(Self.line(String(repeating: "z", count: 500)))
        let kept = wide.all.map(\.text)
        #expect(kept.count == 1 && kept[0].utf8.count <= 100 && kept[0].hasSuffix("bytes]"), "\(kept)")
        #expect(kept[0].contains("cut at AppLogByteLimit"))
    }

    @Test("Many appends keep the newest lines in order (the storage is compacted)")
    func compaction() {
        var ring = AppLogRing(lineLimit: 5, byteLimit: 1_000)
        for index in 0..<1_000 { ring.append(Self.line("\(index)")) }
        #expect(ring.all.map(\.text) == ["995", "996", "997", "998", "999"] && ring.droppedLines == 995)
    }

    @Test("Wall times print as ISO 8601 UTC with milliseconds")
    func iso8601() {
        #expect(WallTime(nanosecondsSinceEpoch: 0).iso8601 == "1970-01-01T00:00:00.000Z")
        #expect(WallTime(nanosecondsSinceEpoch: 1_795_436_241_123_456_789).iso8601 == "2026-11-23T12:17:21.123Z")
        #expect(WallTime(nanosecondsSinceEpoch: -1_000_000).iso8601 == "1969-12-31T23:59:59.999Z")
        var formatter = WallTimeFormatter()
        for nanoseconds: Int64 in [0, 5_000_000, 999_999_999, 1_000_000_000, 1_795_436_241_123_456_789, -1_000_000] {
            let time = WallTime(nanosecondsSinceEpoch: nanoseconds)
            #expect(formatter.iso8601(time) == time.iso8601, "\(nanoseconds)")
        }
    }
}
