import ArgumentParser
import Foundation
import RunwayBench

extension BenchCommand {
    /// Why `--plot PATH` could not be written, checked before the run so that a typo does not cost the whole run;
    /// nil when its folder exists and is writable and PATH is not a folder.
    static func plotDestinationProblem(_ path: String) -> String? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            return "--plot \(path): a directory; expected the name of the SVG file to write"
        }
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            return "--plot \(path): the folder \(folder) does not exist"
        }
        guard isFolder.boolValue else { return "--plot \(path): \(folder) is not a folder" }
        guard access(folder, W_OK | X_OK) == 0 else {
            return "--plot \(path): cannot write in \(folder) (\(String(cString: strerror(errno))))"
        }
        return nil
    }

    /// `--plot FILE.svg`: the lateness-by-percentile chart of one run (the last).
    static func writePlot(to path: String, plan: BenchPlan, runway: RunwayRunResult, nio: NIORunResult?) throws {
        let svg = LatenessPlot(plan: plan, runway: runway, nio: nio).svg
        do {
            try svg.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            printError("error: cannot write the plot to \(path): \(error)")
            throw ExitCode(1)
        }
    }
}
