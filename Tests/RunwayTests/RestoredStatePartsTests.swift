import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayProtocol
import Testing

@testable import RunwayProcesses

/// R2: a restored state is handed back in `restoredState` lines of at most 32 KiB of escaped state text, cut between
/// UTF-8 sequences, so that every line is valid JSON text and the parts join back to the state.
@Suite struct RestoredStatePartsTests {
    @Test func R2_aStateIsCutIntoPartsOfAtMost32KiBNeverInsideACharacter() throws {
        // 3-byte characters after one ASCII byte: the 32,768th byte falls inside a character.
        let state = Array(("a" + String(repeating: "€", count: 30_000)).utf8)
        let parts = ProcessSupervisor.restoredParts(state)
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { $0.count <= AppProtocol.restoredStatePartBytes })
        #expect(parts.allSatisfy { String(validating: $0, as: UTF8.self) != nil })
        #expect(Array(parts.joined()) == state)
        #expect(ProcessSupervisor.restoredParts([]).map(\.count) == [0], "an empty state is one empty part")
    }

    @Test func R2_partsAreCutByTheirEscapedSizeSoEveryLineStaysUnderTheLineLimit() throws {
        // Quotes and backslashes escape to two bytes, control characters to six: 32 KiB of them is a line of
        // 64 KiB or more, which a client reading lines of at most 64 KiB drops.
        for byte: UInt8 in [UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x01, 0x0A] {
            let state = Array(repeating: byte, count: 40_000) + Array("end".utf8)
            let lines = ProcessSupervisor.restoredParts(state).map {
                AppProtocolCodec.encode(
                    RunwayToApp.restoredState(state: String(decoding: $0, as: UTF8.self), more: true)
                )
            }
            #expect(lines.allSatisfy { $0.count <= AppProtocol.maximumLineBytes / 2 + 64 }, "byte \(byte)")
            let decoded = try lines.map { line -> String in
                let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
                return try #require(object?["state"] as? String)
            }
            #expect(Array(decoded.joined().utf8) == state, "byte \(byte)")
        }
    }
}

/// What writing a 1 MiB restored state costs the loop thread: cutting it and encoding its `restoredState` lines.
/// Prints the median of 11 runs; `RUNWAY_MEASURE=1 swift test --filter RestoredStateEncodingMeasurement`.
@Suite struct RestoredStateEncodingMeasurement {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["RUNWAY_MEASURE"] != nil))
    func R2_measureEncodingTheLinesOfOneMebibyte() {
        let state = Array(repeating: UInt8(ascii: "7"), count: 1 << 20)
        var runs: [Duration] = []
        for _ in 0..<11 {
            runs.append(
                ContinuousClock().measure {
                    let parts = ProcessSupervisor.restoredParts(state)
                    let bytes = parts.map {
                        AppProtocolCodec.encode(
                            RunwayToApp.restoredState(state: String(decoding: $0, as: UTF8.self), more: true)
                        ).count
                    }
                    #expect(bytes.reduce(0, +) > 1 << 20)
                }
            )
        }
        print("restoredState lines of 1 MiB: encode median \(runs.sorted()[runs.count / 2]) (11 runs)")
    }
}
