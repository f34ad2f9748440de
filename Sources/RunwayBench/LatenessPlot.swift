import Foundation

/// A lateness-by-percentile chart (the classic HdrHistogram plot) as a hand-written SVG: x is the percentile
/// on a log scale of 1 / (1 − p) (0, 90, 99, 99.9 … %), y the lateness in microseconds on a log scale. One
/// line per series, points from the histogram's percentile iterator (5 ticks per half distance).
package struct LatenessPlot {
    package struct Series {
        package var name: String
        package var color: String
        package var dashed: Bool
        package var statistics: LatenessStatistics
    }

    package var title: String
    package var series: [Series]

    private static let width = 960.0
    private static let height = 520.0
    private static let left = 80.0
    private static let right = 290.0
    private static let top = 50.0
    private static let bottom = 60.0

    /// One point: x = log10(1 / (1 − p)), y = log10(microseconds).
    private struct Point {
        package var x: Double
        package var y: Double
    }

    private func points(_ statistics: LatenessStatistics, xMax: Double) -> [Point] {
        statistics.histogram.percentiles(ticksPerHalfDistance: 5).map { value in
            let fraction = value.percentileLevelIteratedTo / 100
            let x = fraction >= 1 ? xMax : min(xMax, log10(1 / (1 - fraction)))
            return Point(x: x, y: log10(max(Double(value.value), 100) / 1_000))
        }
    }

    package var svg: String {
        let plotted = self.series.filter { $0.statistics.histogram.totalCount > 0 }
        let largestCount = plotted.map { Double($0.statistics.histogram.totalCount) }.max() ?? 10
        let xMax = max(2, ceil(log10(largestCount)))
        let lines = plotted.map { (series: $0, points: self.points($0.statistics, xMax: xMax)) }
        let ys = lines.flatMap { $0.points.map(\.y) }
        let yMin = floor(ys.min() ?? 0)
        let yMax = max(yMin + 1, ceil(ys.max() ?? 1))

        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        func px(_ x: Double) -> String { format(Self.left + x / xMax * plotWidth) }
        func yPosition(_ y: Double) -> Double { Self.top + plotHeight - (y - yMin) / (yMax - yMin) * plotHeight }
        func py(_ y: Double) -> String { format(yPosition(y)) }

        var out: [String] = []
        out.append(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(Self.height))\" "
                + "viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" font-family=\"sans-serif\" font-size=\"12\">"
        )
        out.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>")
        out.append("<text x=\"\(format(Self.left))\" y=\"28\" font-size=\"15\">\(escape(self.title))</text>")
        // Grid and axis labels: one vertical line per nine, one horizontal line per decade.
        for decade in 0...Int(xMax) {
            let x = Double(decade)
            let label = decade == 0 ? "0%" : percentLabel(decade)
            out.append(gridLine(x1: px(x), y1: py(yMin), x2: px(x), y2: py(yMax)))
            out.append(
                "<text x=\"\(px(x))\" y=\"\(format(Self.height - Self.bottom + 18))\" text-anchor=\"middle\">"
                    + "\(label)</text>"
            )
        }
        for decade in Int(yMin)...Int(yMax) {
            let y = Double(decade)
            out.append(gridLine(x1: px(0), y1: py(y), x2: px(xMax), y2: py(y)))
            out.append(
                "<text x=\"\(format(Self.left - 8))\" y=\"\(format(yPosition(y) + 4))\" text-anchor=\"end\">"
                    + "\(microsecondsLabel(decade))</text>"
            )
        }
        out.append(
            "<text x=\"\(format(Self.left + plotWidth / 2))\" y=\"\(format(Self.height - 18))\" text-anchor=\"middle\">"
                + "percentile (log scale of 1/(1-p))</text>"
        )
        out.append(
            "<text transform=\"translate(20 \(format(Self.top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">"
                + "lateness (µs, log scale)</text>"
        )
        for (index, line) in lines.enumerated() {
            let path = line.points.map { "\(px($0.x)),\(py($0.y))" }.joined(separator: " ")
            let dash = line.series.dashed ? " stroke-dasharray=\"6 4\"" : ""
            out.append(
                "<polyline fill=\"none\" stroke=\"\(line.series.color)\" stroke-width=\"2\"\(dash) points=\"\(path)\"/>"
            )
            let legendY = Self.top + 10 + Double(index) * 22
            let legendX = Self.width - Self.right + 20
            out.append(
                "<line x1=\"\(format(legendX))\" y1=\"\(format(legendY))\" x2=\"\(format(legendX + 28))\" "
                    + "y2=\"\(format(legendY))\" stroke=\"\(line.series.color)\" stroke-width=\"2\"\(dash)/>"
            )
            out.append(
                "<text x=\"\(format(legendX + 36))\" y=\"\(format(legendY + 4))\">\(escape(line.series.name)) "
                    + "(n=\(line.series.statistics.histogram.totalCount))</text>"
            )
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }
}

private func gridLine(x1: String, y1: String, x2: String, y2: String) -> String {
    "<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y2)\" stroke=\"#dddddd\"/>"
}

/// `90%`, `99%`, `99.9%` … for 1 − 10^-decade.
private func percentLabel(_ decade: Int) -> String {
    decade <= 2 ? "\(100 - Int(pow(10, Double(2 - decade))))%" : "99." + String(repeating: "9", count: decade - 2) + "%"
}

/// `1 µs`, `10 µs`, `1 ms` … for 10^decade microseconds.
private func microsecondsLabel(_ decade: Int) -> String {
    switch decade {
    case ..<0: return String(format: "%g µs", pow(10, Double(decade)))
    case 0..<3: return "\(Int(pow(10, Double(decade)))) µs"
    case 3..<6: return "\(Int(pow(10, Double(decade - 3)))) ms"
    default: return "\(Int(pow(10, Double(decade - 6)))) s"
    }
}

private func format(_ value: Double) -> String { String(format: "%.1f", value) }

private func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
}
