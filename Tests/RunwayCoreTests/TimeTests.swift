import RunwayCore
import Testing

@Suite struct TimeTests {
    @Test func instantArithmeticSaturates() {
        #expect(Instant.distantFuture + .seconds(1) == .distantFuture)
        #expect(Instant.origin - .seconds(1) == .origin)
        #expect(at(3) - TimeSpan.seconds(1) == at(2))
        #expect(at(1) - at(3) == .seconds(-2))
        #expect(Instant.distantFuture - Instant.origin == .max)
    }

    @Test func fractionalSecondsRoundUpToTheNanosecond() {
        #expect(TimeSpan.seconds(0.1) == .nanoseconds(100_000_000))
        #expect(TimeSpan.seconds(1e-10) == .nanoseconds(1))
        #expect(TimeSpan.seconds(Double.nan) == nil)
        #expect(TimeSpan.seconds(Double.infinity) == nil)
        #expect(TimeSpan.seconds(1e300) == .max)
    }

    @Test func descriptionsShowSecondsWithMilliseconds() {
        #expect(at(milliseconds: 30_005).description == "t=30.005s")
        #expect(TimeSpan.milliseconds(-1_250).description == "-1.250s")
        #expect(TimeSpan.max.description == "infinite")
    }
}
