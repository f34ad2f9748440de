import Foundation
import RunwayControl
@_spi(Driver) import RunwayTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hostile apps and clients against a real `runway run`: what an app or a client can make the daemon hold is
/// bounded, exceeding a bound gets an error naming it, and the CLI's exit codes say what failed (K1, K2, A5, B1).
@Suite(.serialized) struct HostileClientTests {
    static let alpha = "com.example.alpha"
    static let hog = "com.example.hog"

    /// A protocol child that begins tasks with the longest names allowed until it is refused, then tries one more
    /// name a byte too long, and writes what it was answered to `HOG_RESULT`. Its names are control characters,
    /// which JSON escapes six-fold: the worst case for the size of a `status` reply.
    static let hogScript = #"""
        import json, os, socket, time
        channel = socket.socket(fileno=int(os.environ["RUNWAY_FD"]))
        reader = channel.makefile("r", encoding="utf-8", newline="\n")
        tasks, size = int(os.environ["HOG_TASKS"]), int(os.environ["HOG_NAME_BYTES"])
        counter = [0]
        def send(line):
            channel.sendall((json.dumps(line, separators=(",", ":")) + "\n").encode())
        def request(kind, **fields):
            counter[0] += 1
            send({"type": kind, "request": counter[0], **fields})
            while True:
                line = json.loads(reader.readline())
                if line.get("type") == "message":
                    send({"type": "ack", "token": line["token"]})
                elif line.get("request") == counter[0]:
                    return line
        def name(number, length):
            head = "%05d" % number
            return head + "\x01" * (length - len(head))
        granted, refused = [], {"refusal": "none"}
        for number in range(tasks + 10):
            reply = request("beginBackgroundTask", name=name(number, size))
            if reply.get("task", 0) == 0:
                refused = reply
                break
            granted.append(reply["task"])
            time.sleep(0.002)  # under the protocol's 1,000 lines per second
        request("endBackgroundTask", task=granted[0])
        long = request("beginBackgroundTask", name=name(0, size + 1))
        again = request("beginBackgroundTask", name=name(tasks, size))
        with open(os.environ["HOG_RESULT"] + ".part", "w") as out:
            json.dump({"granted": len(granted), "refused": refused, "long": long, "again": again}, out)
        os.rename(os.environ["HOG_RESULT"] + ".part", os.environ["HOG_RESULT"])
        for line in reader:
            message = json.loads(line)
            if message.get("type") == "message":
                send({"type": "ack", "token": message["token"]})
        """#

    @Test func A5_aProtocolChildHoldsAtMostTheTaskLimitAndStatusStillAnswers() throws {
        let scratch = "/tmp/runway-hog-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try Self.hogScript.write(toFile: scratch + "/hog.py", atomically: true, encoding: .utf8)
        let result = scratch + "/result.json"
        let hogKeys = """
            <key>ProgramArguments</key><array><string>/usr/bin/env</string><string>python3</string>\
            <string>\(scratch)/hog.py</string></array>
            <key>RunwayProtocol</key><integer>1</integer>
            <key>EnvironmentVariables</key><dict><key>HOG_TASKS</key><string>1000</string>\
            <key>HOG_NAME_BYTES</key><string>256</string><key>HOG_RESULT</key><string>\(result)</string></dict>
            """
        // The queue limit at its minimum: the status reply below (about 1.5 MB) is far larger, and must still pass.
        let daemon = try DaemonProcess(
            apps: [Self.alpha: "", Self.hog: hogKeys],
            settings: "<key>BackgroundTimeBudget</key><real>30</real>"
                + "<key>ControlQueueByteLimit</key><integer>65536</integer>"
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.hog).status == 0)
        try waitUntil("the hog's result\n\(daemon.output)", timeout: .seconds(120)) {
            FileManager.default.fileExists(atPath: result)
        }
        let answers = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: result))) as? [String: Any]
        )
        func refusal(_ key: String) -> String { ((answers[key] as? [String: Any])?["refusal"] as? String) ?? "none" }
        // Expected: exactly 1,000 tasks granted, the next refused naming the limit; a 257-byte name refused naming
        // its limit; once one task ended, one more 256-byte name granted.
        #expect(answers["granted"] as? Int == 1_000, "\(answers)")
        #expect(
            refusal("refused") == "beginBackgroundTask refused for \(Self.hog): tooManyTasks: the app already holds "
                + "1000 outstanding background tasks, the limit (TaskLimitPerApp)"
        )
        #expect(
            refusal("long") == "beginBackgroundTask refused for \(Self.hog): nameTooLong: the task name is longer "
                + "than 256 bytes, the limit (TaskNameByteLimit)"
        )
        #expect(((answers["again"] as? [String: Any])?["task"] as? Int ?? 0) > 0, "\(answers)")

        // The status reply with every task (--tasks) is bounded by the limits, larger than the queue limit, and
        // still answered in full; a plain one lists 16 tasks and counts them all.
        let json = try daemon.cli("status", "--json", "--tasks")
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdoutData.count > 1_000_000, "status reply of \(json.stdoutData.count) bytes")
        let reply = try ControlClient.decode(ControlReply.self, Array(json.stdoutData.dropLast()))
        let row = try #require(reply.apps?.first { $0.app == Self.hog })
        #expect(row.tasks.count == 1_000)
        #expect(row.tasks.allSatisfy { $0.name.utf8.count == 256 })
        let plain = try daemon.request(ControlRequest(command: "status", app: Self.hog))
        #expect(plain.apps?.first?.tasks.count == 16)
        #expect(plain.apps?.first?.tasksTotal == 1_000)
        let table = try daemon.cli("status")
        #expect(table.status == 0, "\(table.stderr)")

        // The control socket's begin-task is held to the same limits, for process and embedded apps alike.
        let full = try daemon.cli("begin-task", Self.hog, "one-more")
        #expect(full.status == 1, "\(full)")
        #expect(full.stderr.contains("tooManyTasks: the app already holds 1000 outstanding"), "\(full)")
        #expect(try daemon.cli("launch", Self.alpha).status == 0)
        let long = try daemon.cli("begin-task", Self.alpha, String(repeating: "x", count: 257))
        #expect(long.status == 1, "\(long)")
        #expect(long.stderr.contains("nameTooLong: the task name is longer than 256 bytes"), "\(long)")
        let longest = try daemon.cli("begin-task", Self.alpha, String(repeating: "x", count: 256))
        #expect(longest.status == 0, "\(longest)")
        #expect(try daemon.stop() == 0, "\(daemon.output.suffix(2_000))")
    }

    /// Clients that closed while the daemon was busy (stopped here, so that their end-of-file and the
    /// newcomer arrive in one turn, the newcomer first) do not count against the newcomer.
    @Test func K1_peersThatHaveClosedDoNotCountAgainstANewClient() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        var clients: [ControlClient] = []
        for _ in 0..<64 {
            let client = try daemon.client()
            #expect(try client.request(ControlRequest(command: "status")).ok)
            clients.append(client)
        }
        let pid = daemon.process.processIdentifier
        kill(pid, SIGSTOP)
        let newcomer: ControlClient
        do {
            defer { kill(pid, SIGCONT) }
            // A group stop reaches each thread in its own time: the loop must not run again before the closes.
            try waitUntil("every thread of the daemon to stop") { try everyThreadStopped(pid) }
            newcomer = try daemon.client()
            Thread.sleep(forTimeInterval: 0.05)  // Setup: the newcomer's connection is queued first.
            clients.removeAll()  // every one of the 64 closes
        }
        let reply = try newcomer.request(ControlRequest(command: "status", id: 65))
        #expect(reply.ok && reply.id == 65, "\(reply)")
    }

    /// Subscribers that never read are dropped once more than `ControlQueueByteLimit` waits for them,
    /// with a final line naming the limit after whole event lines, and the daemon's memory stays bounded.
    @Test(.disabled(if: SanitizerRuntime.address, "its memory bound would measure ASan's quarantine and redzones"))
    func K1_aSubscriberThatNeverReadsIsDroppedWithALineNamingTheLimit() throws {
        let daemon = try DaemonProcess(
            apps: [Self.alpha: ""],
            settings: "<key>BackgroundTimeBudget</key><real>30</real>"
                + "<key>ControlQueueByteLimit</key><integer>65536</integer>"
        )
        defer { daemon.close() }
        let before = try residentBytes(of: daemon.process.processIdentifier)
        var subscribers: [ControlClient] = []
        for _ in 0..<20 {
            let subscriber = try ControlClient(path: daemon.socket, replyTimeoutSeconds: 20)
            #expect(try subscriber.request(ControlRequest(command: "events")).subscribed == true)
            subscribers.append(subscriber)
        }
        let driver = try daemon.client()
        #expect(try driver.request(ControlRequest(command: "launch", app: Self.alpha)).ok)
        // About 1.2 MB of events (8,000 transitions of ~150 bytes), requests pipelined 250 at a time.
        for _ in 0..<16 {
            var batch: [UInt8] = []
            for index in 0..<250 {
                let command = index % 2 == 0 ? "resignActive" : "activate"
                batch += ControlProtocol.encodedLine(ControlRequest(command: command, app: Self.alpha))
            }
            try driver.send(batch)
            for _ in 0..<250 {
                let line = try #require(try driver.readLine())
                #expect(try ControlClient.decode(ControlReply.self, line).ok)
            }
        }
        let grown = try residentBytes(of: daemon.process.processIdentifier) - before
        // Expected: at most the limit, a write chunk and the shared lines per subscriber, with room for the
        // allocator; the unbounded queues this replaces held about 9.5 MB per subscriber for a 4 MiB limit.
        #expect(grown < 48 << 20, "the daemon grew by \(grown) bytes")

        for subscriber in subscribers {
            var events = 0
            var last: [UInt8] = []
            while let line = try subscriber.readLine() {
                if !last.isEmpty {
                    _ = try ControlClient.decode(ControlEventLine.self, last)
                    events += 1
                }
                last = line
            }
            let final = try ControlClient.decode(ControlReply.self, last)
            #expect(final.error?.code == "slowReader", "after \(events) events: \(final)")
            #expect(
                final.error?.message.hasPrefix(
                    "more than 65536 bytes of replies or events were waiting for this connection, the limit "
                        + "(ControlQueueByteLimit)"
                ) == true,
                "\(final)"
            )
            #expect(events > 0 && events < 8_000, "events before the drop: \(events)")
        }
        // The daemon serves on, and the dropped subscribers no longer count as clients.
        #expect(try daemon.request(ControlRequest(command: "status")).ok)
    }

    /// 64 for usage, 69 only when nothing listens, 75 when a listener took the request and failed to
    /// reply.
    @Test func K2_exitCodesTellUsageNoDaemonAndAFailedReplyApart() throws {
        let tooLong = "/tmp/" + String(repeating: "s", count: 120) + ".sock"
        var result = try RunwayBinary.run("status", "--socket", tooLong)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("is longer than 107 bytes"), "\(result)")

        let nobody = "/tmp/runway-nobody-\(UUID().uuidString.prefix(8)).sock"
        result = try RunwayBinary.run("status", "--socket", nobody)
        #expect(result.status == 69, "\(result)")

        // Something listens, takes the connection and the request, and closes without a reply.
        let path = "/tmp/runway-mute-\(UUID().uuidString.prefix(8)).sock"
        let listener = try MuteListener(path: path)
        defer { listener.close() }
        result = try RunwayBinary.run("status", "--socket", path)
        #expect(result.status == 75, "\(result)")
        #expect(result.stderr.contains("without replying") || result.stderr.contains("write to the daemon failed"))
        result = try RunwayBinary.run("launch", Self.alpha, "--socket", path)
        #expect(result.status == 75, "\(result)")
    }

    /// A number where an integer is expected names the field, what was expected and what was found.
    @Test func K1_aFractionalOrNegativeIntegerFieldIsNamed() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let client = try daemon.client()
        func reply(_ text: String) throws -> ControlReply {
            try client.send(Array((text + "\n").utf8))
            return try ControlClient.decode(ControlReply.self, try #require(try client.readLine()))
        }
        var answer = try reply(#"{"command": "status", "id": 1.5}"#)
        #expect(
            answer.error
                == ControlErrorPayload(
                    code: "invalidRequest",
                    message: "field 'id': expected an integer from -9223372036854775808 to 9223372036854775807, "
                        + "found 1.5"
                )
        )
        answer = try reply(#"{"command": "endTask", "app": "com.example.alpha", "taskID": -1}"#)
        #expect(
            answer.error
                == ControlErrorPayload(
                    code: "invalidRequest",
                    message: "field 'taskID': expected an integer from 0 to 18446744073709551615, found -1"
                )
        )
        answer = try reply(#"{"command": "status", "id": 2.0}"#)
        #expect(answer.ok && answer.id == 2, "an integral number is an integer")
    }
}
