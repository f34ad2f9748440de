import Foundation
import Hummingbird
import Logging

/// `FunctionHost [--config PATH] [--hostname HOST] [--port N] [--memory-pressure]`: serves the functions of
/// `functions.json` until SIGTERM or SIGINT, then terminates them (P4) and removes its private directory. Prints
/// `function-host listening on HOST:PORT` on standard output once it accepts requests (`--port 0` picks a free
/// port, which that line names).
@main
struct FunctionHostCommand {
    static let usage = "usage: FunctionHost [--config PATH] [--hostname HOST] [--port N] [--memory-pressure]"

    static func main() async {
        var configPath = "functions.json"
        var hostname = "127.0.0.1"
        var port = 8080
        var memoryPressure = false
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            if argument == "--memory-pressure" {
                memoryPressure = true
                continue
            }
            switch (argument, arguments.popFirst()) {
            case ("--config", let value?): configPath = value
            case ("--hostname", let value?): hostname = value
            case ("--port", let value?) where Int(value).map({ (0...65_535).contains($0) }) == true: port = Int(value)!
            default: Self.exit(Self.usage)
            }
        }
        var logger = Logger(label: "function-host")
        logger.logLevel =
            ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .notice
        do {
            let config = try FunctionsConfig.load(path: configPath)
            let directory = URL(fileURLWithPath: configPath).deletingLastPathComponent().standardizedFileURL.path
            let host = try HostRuntime(
                config: config,
                directory: directory,
                watchesMemoryPressure: memoryPressure,
                logger: logger
            )
            let bindName = hostname
            let application = HostServer.application(host: host, hostname: bindName, port: port, logger: logger) {
                FileHandle.standardOutput.write(Data("function-host listening on \(bindName):\($0)\n".utf8))
            }
            var service = application
            service.addServices(host.scheduler)
            try await service.runService()
            await host.shutdown()
        } catch {
            Self.exit("FunctionHost: \(error)")
        }
    }

    static func exit(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Foundation.exit(2)
    }
}
