import Foundation
import RunwayTestKit
import Testing

/// `GET /healthz` and `GET /readyz` on the metrics listener of a real `runway run` (Docs/Operations.md, "Health
/// probes"), over real HTTP. HealthProbeListenerTests blocks a real loop under the listener.
@Suite(.serialized) struct HealthProbeTests {
    static let slowStopper = "com.example.slowstopper"

    @Test func theDaemonAnswersTheProbesWithoutCountingScrapesAndIsNotReadyWhileItStops() throws {
        // An app that ignores SIGTERM: the stop waits TerminationGrace (1 s) for it before SIGKILL.
        let daemon = try DaemonProcess(
            apps: [
                Self.slowStopper: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                    + "<string>trap '' TERM; exec sleep 1000</string></array>"
            ],
            arguments: ["--metrics-address", "127.0.0.1:0"]
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        try waitUntil("/readyz 200\n\(daemon.output)") { try httpGet(port: port, "/readyz").status == 200 }
        var answer = try httpGet(port: port, "/readyz")
        #expect(answer.status == 200 && answer.body == "ready\n", "\(answer)")
        answer = try httpGet(port: port, "/healthz")
        #expect(answer.status == 200 && answer.body == "ok\n", "\(answer)")
        answer = try httpGet(port: port, "/healthz?verbose=1")
        #expect(answer.status == 200, "a query string is ignored\n\(answer)")
        answer = try httpExchange(
            port: port,
            "POST /readyz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        #expect(answer.status == 405 && answer.headers.contains("Allow: GET, HEAD"), "\(answer)")
        // HEAD is answered as GET without the body (RFC 9110): the same status and Content-Length.
        for (path, length) in [("/readyz", 6), ("/healthz", 3)] {
            answer = try httpExchange(port: port, "HEAD \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(answer.status == 200 && answer.body.isEmpty, "\(path)\n\(answer)")
            #expect(answer.headers.contains("Content-Length: \(length)"), "\(path)\n\(answer)")
        }

        // Probes are not scrapes: twenty of each between two scrapes leave the counter at 1, then 2.
        #expect(sample(try httpGet(port: port).body, "runway_metrics_scrapes_total") == 1)
        for _ in 0..<20 {
            #expect(try httpGet(port: port, "/healthz").status == 200)
            #expect(try httpGet(port: port, "/readyz").status == 200)
        }
        #expect(sample(try httpGet(port: port).body, "runway_metrics_scrapes_total") == 2)

        // While the stop terminates the app, the daemon is not ready, and its loop still turns.
        #expect(try daemon.cli("launch", Self.slowStopper).status == 0)
        kill(daemon.process.processIdentifier, SIGTERM)
        var stopping: HTTPAnswer?
        try waitUntil("/readyz 503 while stopping\n\(daemon.output)") {
            let answer = try httpGet(port: port, "/readyz")
            if answer.status == 503 { stopping = answer }
            return answer.status == 503
        }
        #expect(stopping?.body == "not ready: stopping, the apps are being terminated\n", "\(stopping?.raw ?? "")")
        answer = try httpGet(port: port, "/healthz")
        #expect(answer.status == 200, "the loop turns while the apps stop\n\(answer)\n\(daemon.output)")
        try waitUntil("the daemon to exit\n\(daemon.output)") { !daemon.process.isRunning }
        #expect(daemon.process.terminationStatus == 0, "\(daemon.output)")
    }
}
