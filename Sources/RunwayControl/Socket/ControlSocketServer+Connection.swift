// One accepted control-socket peer, and the casts from a libuv pipe to the stream and handle it is used as.

import CLibUV
import RunwayCore

extension ControlSocketServer {
    /// One accepted peer. Its pipe's `data` holds a retained reference, released by the close callback.
    ///
    /// Threading: loop thread only, like its server.
    final class Connection {
        let id: ConnectionID
        let pipe: UnsafeMutablePointer<uv_pipe_t>
        /// Set from accept until the close starts; nil afterwards, so callbacks that race a close do nothing.
        var server: ControlSocketServer?
        /// Splits the byte stream into lines of at most `maxLineBytes`; an over-long line is reported once and
        /// skipped to its newline (the same framing as the app protocol's).
        var framer: LineFramer
        /// What waits to be written, and how much (the slow-reader bound).
        var outgoing = OutgoingQueue()
        /// Once shutting down: the loop time (`uv_now`, ms) after which it is closed even if not all was written.
        var closeDeadline: UInt64 = 0
        var isShuttingDown = false
        var isClosing = false

        init(id: ConnectionID, pipe: UnsafeMutablePointer<uv_pipe_t>, maxLineBytes: Int) {
            self.id = id
            self.pipe = pipe
            self.framer = LineFramer(maximumLineBytes: maxLineBytes)
        }

        static func owner(of data: UnsafeMutableRawPointer?) -> Connection {
            guard let data else { preconditionFailure("control connection handle without its connection in data") }
            return Unmanaged<Connection>.fromOpaque(data).takeUnretainedValue()
        }
    }
}

/// The pipe as the stream libuv's read, write and shutdown calls take.
func pipeStream(_ pipe: UnsafeMutablePointer<uv_pipe_t>) -> UnsafeMutablePointer<uv_stream_t> {
    UnsafeMutableRawPointer(pipe).assumingMemoryBound(to: uv_stream_t.self)
}

/// The pipe as the handle libuv's close and fileno calls take.
func pipeHandle(_ pipe: UnsafeMutablePointer<uv_pipe_t>) -> UnsafeMutablePointer<uv_handle_t> {
    UnsafeMutableRawPointer(pipe).assumingMemoryBound(to: uv_handle_t.self)
}
