import RunwayCore
import RunwayProtocol
import Testing

/// The state restoration lines of the app protocol (R1, R2): their wire form, as Docs/AppProtocol.md shows it.
@Suite struct RestorationLineTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func R1_preserveStatePartsAndDiscardStateDecodeFromTheirWireForm() throws {
        func decode(_ line: String) throws -> AppToRunway { try AppProtocolCodec.decodeAppLine(Array(line.utf8)) }
        #expect(
            try decode(#"{"type":"preserveState","request":4,"state":"ab","more":true}"#)
                == .preserveState(request: 4, state: "ab", more: true)
        )
        #expect(
            try decode(#"{"type":"preserveState","request":5,"state":""}"#)
                == .preserveState(request: 5, state: "", more: false)
        )
        #expect(try decode(#"{"type":"discardState","request":6}"#) == .discardState(request: 6))
        #expect(throws: AppProtocolError.self) { try decode(#"{"type":"preserveState","request":7}"#) }
        for line in [AppToRunway.preserveState(request: 1, state: "x\"y", more: true), .discardState(request: 2)] {
            #expect(try AppProtocolCodec.decodeAppLine(AppProtocolCodec.encode(line)) == line)
        }
    }

    @Test func R1_aPreserveStateLineThatIsNotUTF8IsRefusedSayingSoWithItsRequest() throws {
        let line = Array(#"{"type":"preserveState","request":7,"state":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        do {
            _ = try AppProtocolCodec.decodeAppLine(line)
            Issue.record("decoded a line that is not UTF-8")
        } catch {
            #expect(error.code == "invalidJSON")
            #expect(error.message.contains("not UTF-8"), "\(error.message)")
            #expect(error.request == 7)
        }
    }

    @Test func R2_aRestoringLaunchIsRestoredStateLinesThenDidFinishLaunchingWithRestoration() throws {
        #expect(
            self.text(AppProtocolCodec.encode(RunwayToApp.restoredState(state: "41", more: true)))
                == #"{"more":true,"state":"41","type":"restoredState"}"#
        )
        #expect(
            self.text(AppProtocolCodec.encode(RunwayToApp.restoredState(state: "", more: false)))
                == #"{"state":"","type":"restoredState"}"#
        )
        #expect(
            self.text(AppProtocolCodec.encode(RunwayToApp.restoringLaunch(token: 3, restoration: "purged")))
                == #"{"message":"didFinishLaunching","restoration":"purged","token":3,"type":"message"}"#
        )
        for line in [
            RunwayToApp.restoredState(state: "a", more: true), .restoringLaunch(token: 9, restoration: "reboot"),
        ] {
            #expect(try AppProtocolCodec.decodeRunwayLine(AppProtocolCodec.encode(line)) == line)
        }
        // A launch from nothing has no restoration field.
        #expect(
            !self.text(AppProtocolCodec.encode(RunwayToApp.message(token: 3, .didFinishLaunching))).contains(
                "restoration"
            )
        )
    }
}
