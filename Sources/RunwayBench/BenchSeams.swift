import RunwayCore

extension NIORunResult {
    /// Test seam: this result with one more expiration warning expected and never observed, as when swift-nio's
    /// half gives up waiting (a debug build's `--compare nio` can lose thousands). `package`, never public: only
    /// this package's tests call it, to check that such a comparison prints no ratios and fails.
    ///
    /// Threading: a pure function of a value.
    package func losingOneWarning() -> NIORunResult {
        var result = self
        result.events.warnings.add(expectedAt: .origin, observed: nil)
        return result
    }
}
