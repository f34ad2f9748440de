import RunwayProtocol
import Testing

/// A5: a request whose field holds a value of the wrong kind or out of range is answered with an error that names the
/// field and carries the request's id, so that an app waiting for that reply gets it (W4, W7 fields included).
@Suite struct AppProtocolFieldErrorTests {
    @Test(
        "A5: a bad field names itself and keeps the request id",
        arguments: [
            (
                #"{"type":"backgroundWakeCompleted","request":1,"wake":-1}"#, 1,
                "field 'wake' should be an integer from 0"
            ),
            (#"{"type":"backgroundWakeCompleted","request":2,"wake":1.5}"#, 2, "field 'wake'"),
            (#"{"type":"backgroundWakeCompleted","request":3,"wake":1e30}"#, 3, "field 'wake'"),
            (#"{"type":"scheduleRefresh","request":4,"seconds":"x"}"#, 4, "field 'seconds' should be a number"),
            (#"{"type":"endBackgroundTask","request":5,"task":-2}"#, 5, "field 'task'"),
        ] as [(String, Int64, String)]
    )
    func A5_badFieldKeepsRequestID(input: String, request: Int64, fragment: String) {
        do {
            _ = try AppProtocolCodec.decodeAppLine(Array(input.utf8))
            Issue.record("decoded \(input)")
        } catch {
            #expect(error.code == "invalidField", "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
            #expect(error.request == request, "\(error)")
        }
    }

    @Test("A5: a line that is not JSON, or whose request id is itself bad, has no request id")
    func A5_unreadableRequestID() {
        for input in ["not json", #"{"type":"scheduleRefresh","request":-1.5,"seconds":1}"#] {
            do {
                _ = try AppProtocolCodec.decodeAppLine(Array(input.utf8))
                Issue.record("decoded \(input)")
            } catch {
                #expect(error.request == nil, "\(error)")
            }
        }
    }
}
