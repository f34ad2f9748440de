import CLibUV
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("CLibUV shim")
struct ShimTests {
    @Test func peerUIDOfASocketPairIsOurOwn() throws {
        var descriptors: [Int32] = [-1, -1]
        let status = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors)
        try #require(status == 0, "socketpair failed: errno=\(errno)")
        defer {
            close(descriptors[0])
            close(descriptors[1])
        }
        #expect(runway_peer_uid(descriptors[0]) == Int64(getuid()))
        #expect(runway_peer_uid(-1) == -Int64(EBADF))
    }

    @Test func monotonicClockDoesNotGoBackwards() {
        let first = runway_monotonic_nanoseconds()
        let second = runway_monotonic_nanoseconds()
        #expect(second >= first)
    }
}
