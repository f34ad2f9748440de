import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A Unix socket that accepts every connection, reads what arrives for a moment, and closes it without a word:
/// a live peer whose reply fails.
final class MuteListener: @unchecked Sendable {
    // Safety: `fd` is written once in init; the accepting thread only reads it.
    let fd: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        self.fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = bindUnixSocket(self.fd, to: path)
        guard bound == 0, listen(self.fd, 8) == 0 else {
            throw HarnessError(description: "cannot listen on \(path): errno \(errno)")
        }
        let fd = self.fd
        Thread.detachNewThread {
            while true {
                let peer = accept(fd, nil, nil)
                guard peer >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 4_096)
                _ = recv(peer, &buffer, buffer.count, 0)
                Glibc.close(peer)
            }
        }
    }

    func close() {
        shutdown(self.fd, Int32(SHUT_RDWR))
        Glibc.close(self.fd)
        unlink(self.path)
    }
}
