@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayProtocol
import Testing

@testable import RunwayProcesses

/// R2: a restored state is handed back in `restoredState` lines of at most 32 KiB of state text, cut between UTF-8
/// sequences, so that every line is valid JSON text and the parts join back to the state.
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
}
