import RunwayCore
import RunwayProtocol
import Testing

@Suite("App protocol codec (A4, A5)")
struct AppProtocolCodecTests {
    static let runwayLines: [RunwayToApp] = [
        .hello(app: "com.example.a", version: 1),
        .message(token: 7, .didEnterBackground),
        .message(token: 8, .backgroundTaskWillExpire(BackgroundTaskID(rawValue: 12))),
        .message(token: 9, .notification(name: "sync", payload: "{\"x\":1}")),
        .message(token: 10, .backgroundWake(reason: .remoteNotification, payload: "{}", token: WakeToken(rawValue: 4))),
        .message(token: 11, .backgroundWake(reason: .refresh, payload: "", token: WakeToken(rawValue: 5))),
        .taskBegun(request: 1, task: 12, refusal: nil),
        .taskBegun(request: 2, task: 0, refusal: "suspended"),
        .taskEnded(request: 3),
        .timeRemaining(request: 4, seconds: 2.5),
        .timeRemaining(request: 5, seconds: nil),
        .error(request: 6, code: "alreadyEnded", message: "already ended"),
        .error(request: nil, code: "invalidJSON", message: "bad"),
    ]

    @Test("A4: every Runway line survives encode then decode", arguments: runwayLines)
    func A4_runwayLinesRoundTrip(line: RunwayToApp) throws {
        #expect(try AppProtocolCodec.decodeRunwayLine(AppProtocolCodec.encode(line)) == line)
    }

    @Test(
        "A4: every app line survives encode then decode",
        arguments: [
            AppToRunway.ack(token: 3), .beginBackgroundTask(request: 1, name: "upload"),
            .endBackgroundTask(request: 2, task: 9), .backgroundTimeRemaining(request: 3),
            .backgroundWakeCompleted(request: 4, wake: 2), .scheduleRefresh(request: 5, seconds: 3.5),
            .scheduleRefresh(request: 6, seconds: -1),
        ]
    )
    func A4_appLinesRoundTrip(line: AppToRunway) throws {
        #expect(try AppProtocolCodec.decodeAppLine(AppProtocolCodec.encode(line)) == line)
    }

    @Test("W1: the documented wire form of a backgroundWake message and the app's answers")
    func W1_wakeWireForm() throws {
        let wake = Message.backgroundWake(reason: .fetch, payload: "{}", token: WakeToken(rawValue: 1))
        let text = String(decoding: AppProtocolCodec.encode(.message(token: 9, wake)), as: UTF8.self)
        #expect(
            text == #"{"message":"backgroundWake","payload":"{}","reason":"fetch","token":9,"type":"message","wake":1}"#
        )
        let completed = #"{"type":"backgroundWakeCompleted","request":5,"wake":1}"#
        #expect(
            try AppProtocolCodec.decodeAppLine(Array(completed.utf8)) == .backgroundWakeCompleted(request: 5, wake: 1)
        )
        #expect(throws: AppProtocolError.self) {
            _ = try AppProtocolCodec.decodeAppLine(Array(#"{"type":"scheduleRefresh","request":6}"#.utf8))
        }
        #expect(throws: AppProtocolError.self) {
            _ = try AppProtocolCodec.decodeAppLine(Array(#"{"type":"backgroundWakeCompleted","request":7}"#.utf8))
        }
    }

    @Test("A4: the documented wire form of a message line")
    func A4_wireForm() {
        let text = String(decoding: AppProtocolCodec.encode(.message(token: 7, .didEnterBackground)), as: UTF8.self)
        #expect(text == #"{"message":"didEnterBackground","token":7,"type":"message"}"#)
        let ack = try? AppProtocolCodec.decodeAppLine(Array(#"{"type":"ack","token":7}"#.utf8))
        #expect(ack == .ack(token: 7))
    }

    @Test(
        "A5: malformed lines name the problem",
        arguments: [
            ("not json", "invalidJSON", "not a JSON object"),
            (#"{"token":1}"#, "missingField", "'type'"),
            (#"{"type":"ack"}"#, "missingField", "field 'token'"),
            (#"{"type":"ack","token":"x"}"#, "invalidField", "'token' should be an integer"),
            (#"{"type":"launchMissiles","request":4}"#, "unknownType", "launchMissiles"),
            (#"{"type":"endBackgroundTask","request":4}"#, "missingField", "field 'task'"),
        ]
    )
    func A5_malformedLines(input: String, code: String, fragment: String) {
        #expect {
            _ = try AppProtocolCodec.decodeAppLine(Array(input.utf8))
        } throws: { error in
            guard let error = error as? AppProtocolError else { return false }
            return error.code == code && error.message.contains(fragment)
        }
    }

    @Test("A5: an error for a request carries its id")
    func A5_errorKeepsRequestID() {
        do {
            _ = try AppProtocolCodec.decodeAppLine(Array(#"{"type":"endBackgroundTask","request":41}"#.utf8))
            Issue.record("decoded a line without task")
        } catch {
            #expect(error.request == 41)
        }
    }
}
