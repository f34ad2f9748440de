import Foundation
import RunwayConfig
import RunwayTestKit
import Testing

/// Loading a configuration directory reads each file once and parses each good file once, however many keys it
/// has or leaves out: the loader's own counts (`ConfigReadCounts`), and the kernel's count of the read system calls
/// of the loading thread (/proc/thread-self/io), bound the work per app without timing it.
@Suite("C1: loading reads and parses each file once, and its work grows linearly with the apps")
struct ReadCountTests {
    /// A directory with a `Runway.plist` and `count` process apps like the fleet benchmark's.
    static func fleet(_ count: Int) throws -> TemporaryConfig {
        let config = try TemporaryConfig()
        try config.write("Runway.plist", plistXML("<key>SuspensionMechanism</key><string>signal</string>"))
        for index in 0..<count {
            try config.writeApp(
                "app\(index)",
                identifier: "com.example.fleet\(index)",
                "<key>RunAtLoad</key><true/>"
            )
        }
        return config
    }

    /// Read system calls (read, pread, readv) made by this thread so far.
    static func threadReadCalls() throws -> Int {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("syscr:") })
        return try #require(Int(line.dropFirst("syscr:".count).trimmingCharacters(in: .whitespaces)))
    }

    /// The counts of one load, and the read system calls it made.
    static func load(_ directory: String) throws -> (counts: ConfigReadCounts, readCalls: Int, apps: Int) {
        // Loading is synchronous on this thread, so the thread's counter holds its reads and no one else's. Reading
        // the counter costs reads of its own: as many as between two readings with nothing in between.
        let start = try Self.threadReadCalls()
        let before = try Self.threadReadCalls()
        let configuration = try ConfigLoader.load(directory: directory)
        let readCalls = try Self.threadReadCalls() - before - (before - start)
        return (configuration.readCounts, readCalls, configuration.apps.count)
    }

    @Test func C1_eachGoodFileIsReadOnceAndDecodedOnce() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML("<key>BackgroundTimeBudget</key><integer>10</integer>"))
        // Files that warn (unknown key, ignored keys of an embedded app) and files with many keys.
        try config.writeApp("plain", identifier: "com.example.plain")
        try config.writeApp("unknown", identifier: "com.example.unknown", "<key>Colour</key><string>red</string>")
        try config.write(
            "Apps/embedded.plist",
            plistXML(
                """
                <key>CFBundleIdentifier</key><string>com.example.embedded</string>
                <key>WorkingDirectory</key><string>/tmp</string>
                <key>GroupName</key><string>0</string>
                """
            )
        )
        try config.writeApp(
            "many",
            identifier: "com.example.many",
            """
            <key>EnvironmentVariables</key><dict><key>A</key><string>1</string></dict>
            <key>KeepAlive</key><dict><key>Crashed</key><true/></dict>
            <key>ThrottleInterval</key><integer>5</integer>
            <key>SoftResourceLimits</key><dict><key>NumberOfFiles</key><integer>256</integer></dict>
            <key>UIBackgroundModes</key><array><string>audio</string></array>
            <key>CFBundleName</key><string>Many</string>
            """
        )
        let sizes = try FileManager.default.subpathsOfDirectory(atPath: config.path)
            .filter { $0.hasSuffix(".plist") }
            .map { try #require(FileManager.default.attributesOfItem(atPath: config.path + "/" + $0)[.size] as? Int) }

        let (counts, readCalls, apps) = try Self.load(config.path)

        #expect(apps == 4)
        #expect(counts.files == 5)
        #expect(counts.bytes == sizes.reduce(0, +))
        // Runway.plist twice: its scheduler and daemon keys, then its operations keys.
        #expect(counts.decodes == 4 + 2)
        #expect(counts.serializationParses == 0)
        // Per file: one read that takes the whole file and one that finds its end; and /proc/sys/fs/nr_open, read
        // for the NumberOfFiles limit (its content, its end).
        #expect(readCalls <= 2 * counts.files + 2, "\(readCalls) read calls for \(counts.files) files")
    }

    @Test func C1_loadingTwiceTheAppsDoesTwiceTheWork() throws {
        let small = try Self.fleet(100)
        defer { small.remove() }
        let large = try Self.fleet(200)
        defer { large.remove() }

        let first = try Self.load(small.path)
        let second = try Self.load(large.path)

        #expect(first.apps == 100 && second.apps == 200)
        // The 100 apps more cost one file, one decode and at most two reads each: nothing grows faster.
        #expect(second.counts.files - first.counts.files == 100)
        #expect(second.counts.decodes - first.counts.decodes == 100)
        #expect(second.counts.serializationParses == 0)
        let extraReads = second.readCalls - first.readCalls
        #expect(extraReads >= 100 && extraReads <= 200, "\(extraReads) more read calls for 100 more apps")
    }
}
