// What waits to be written to one control-socket peer (K1), and how much: the bound on what a peer that does not
// read can make the daemon hold.

extension ControlSocketServer {
    /// The lines sent to one connection and not yet written. A line is kept as the array it was sent as, so an
    /// event line broadcast to every subscriber is stored once however many subscribers hold it; only the chunk
    /// being written (at most `chunkBytes`) is copied, for libuv. `queuedBytes` counts every byte not yet
    /// written, shared or not: the connection's bound is checked against it.
    ///
    /// Threading: loop thread only, like its connection. A value; no I/O.
    struct OutgoingQueue {
        /// Most bytes handed to libuv in one write: the only per-connection copy.
        static let chunkBytes = 65_536

        private var lines: [[UInt8]] = []
        /// Index in `lines` of the first line not yet wholly taken.
        private var head = 0
        /// Bytes of `lines[head]` already taken into a chunk.
        private var headOffset = 0
        /// Bytes appended and not yet taken into a chunk.
        private(set) var pendingBytes = 0
        /// Size of the chunk being written; 0 when none is.
        private(set) var writingBytes = 0

        /// Every byte sent and not yet written.
        var queuedBytes: Int { self.pendingBytes + self.writingBytes }
        var isWriting: Bool { self.writingBytes > 0 }

        mutating func append(_ line: [UInt8]) {
            guard !line.isEmpty else { return }
            self.lines.append(line)
            self.pendingBytes += line.count
        }

        /// Copies up to `chunkBytes` pending bytes, oldest first, into a new buffer that the caller writes and
        /// frees; nil when nothing is pending. Must not be called while a chunk is being written.
        mutating func takeChunk() -> UnsafeMutableRawBufferPointer? {
            precondition(!self.isWriting, "a control connection writes one chunk at a time")
            guard self.pendingBytes > 0 else { return nil }
            let size = min(self.pendingBytes, Self.chunkBytes)
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
            var filled = 0
            while filled < size {
                let line = self.lines[self.head]
                let count = min(line.count - self.headOffset, size - filled)
                line.withUnsafeBytes { bytes in
                    let part = UnsafeRawBufferPointer(rebasing: bytes[self.headOffset..<(self.headOffset + count)])
                    UnsafeMutableRawBufferPointer(rebasing: chunk[filled..<(filled + count)]).copyMemory(from: part)
                }
                filled += count
                self.headOffset += count
                if self.headOffset == line.count {
                    self.head += 1
                    self.headOffset = 0
                }
            }
            self.compact()
            self.pendingBytes -= size
            self.writingBytes = size
            return chunk
        }

        /// The chunk taken last has been written (or abandoned).
        mutating func chunkWritten() {
            self.writingBytes = 0
        }

        /// Forgets what was not yet taken, except the rest of a line already partly taken, so that what the peer
        /// reads stays whole lines.
        mutating func dropPending() {
            let rest = self.headOffset > 0 ? Array(self.lines[self.head][self.headOffset...]) : []
            self.lines = []
            self.head = 0
            self.headOffset = 0
            self.pendingBytes = 0
            self.append(rest)
        }

        private mutating func compact() {
            if self.head == self.lines.count {
                self.lines = []
                self.head = 0
            } else if self.head >= 64, self.head * 2 >= self.lines.count {
                self.lines.removeFirst(self.head)
                self.head = 0
            }
        }
    }
}
