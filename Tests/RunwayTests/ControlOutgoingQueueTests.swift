import Testing

@testable import Runway
@testable import RunwayControl
@testable import RunwayLoop
@testable import RunwayProcesses

/// The bytes waiting for one control-socket client (K1): counted whole, written in bounded
/// chunks, and dropped only at line boundaries.
@Suite struct ControlOutgoingQueueTests {
    typealias Queue = ControlSocketServer.OutgoingQueue

    /// Takes every chunk, as the writes would, and returns the bytes in order.
    private func drain(_ queue: inout Queue) -> [UInt8] {
        var written: [UInt8] = []
        while let chunk = queue.takeChunk() {
            #expect(chunk.count <= Queue.chunkBytes)
            #expect(queue.writingBytes == chunk.count)
            written += Array(chunk)
            chunk.deallocate()
            queue.chunkWritten()
        }
        return written
    }

    @Test func K1_everyByteSentIsCountedUntilWrittenAndWrittenInOrderInBoundedChunks() {
        var queue = Queue()
        let lines = (0..<300).map { index in Array("line \(index) ".utf8) + [UInt8](repeating: 0x61, count: 997) + [10]
        }
        for line in lines { queue.append(line) }
        let total = lines.map(\.count).reduce(0, +)
        #expect(queue.queuedBytes == total)

        let first = queue.takeChunk()
        // Expected: a full chunk taken, still counted while it is written.
        #expect(first?.count == Queue.chunkBytes)
        #expect(queue.queuedBytes == total)
        queue.chunkWritten()
        #expect(queue.queuedBytes == total - Queue.chunkBytes)

        let rest = self.drain(&queue)
        #expect(Array(first!) + rest == lines.flatMap { $0 })
        #expect(queue.queuedBytes == 0)
        first?.deallocate()
    }

    @Test func K1_droppingWhatWaitsKeepsTheRestOfALineBegunSoTheClientReadsWholeLines() {
        var queue = Queue()
        let long = [UInt8](repeating: 0x62, count: Queue.chunkBytes + 100) + [10]
        queue.append(long)
        queue.append(Array("next\n".utf8))
        let chunk = queue.takeChunk()
        #expect(chunk?.count == Queue.chunkBytes)

        queue.dropPending()
        queue.append(Array("final\n".utf8))
        queue.chunkWritten()

        // Expected: the 101 bytes left of the long line, then the final line; "next" is gone.
        #expect(self.drain(&queue) == [UInt8](repeating: 0x62, count: 100) + [10] + Array("final\n".utf8))
        chunk?.deallocate()
    }
}
