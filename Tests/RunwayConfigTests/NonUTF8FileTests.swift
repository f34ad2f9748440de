import Foundation
import RunwayConfig
import RunwayTestKit
import Testing

@Suite("C2: a file that is not UTF-8 text is refused by name, never decoded")
struct NonUTF8FileTests {
    /// An app file (found by the config-plist fuzzer) that is not UTF-8 (a 0xF5 byte in its comment) and holds a
    /// 0xFF byte inside an `<integer>`: PropertyListDecoder stops the process on it (a fatal error in
    /// FoundationEssentials), so such a file is read by PropertyListSerialization first, which refuses it.
    static let fuzzedFile = [
        "PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iVVRGLTgiPz4KPCFET0NUWVBFIHBsaXN0IFBVQkxJQyAiLS8vQXBwbGUvL0RU",
        "RCBQTElTVCAxLjAvL0VOIiAiaHR0cDovL3d3dy5hcHBsZS5jb20vRFREcy9Qcm9wZXJ0eUxpc3QtMS4wLmR0ZCI+CjwhLS0KICBV",
        "cGxvYWRlcjogYW4gYXBwIHRoYXQgZXhpdHMgaW5zdGVhZCBvZiBz9XNwZW5kaW5nIChFMSwgUzEzKS4gSW4gUnVud2F5J3MgImRy",
        "YWluIiBzdHlsZSBpdCBlbnRlcnMgdGhlIGJhY2tncm91bmQsCiAgbWF5IGZpbmlzaCBpdHMgdXBsb2FkcyB1bmRlciBpdHMgb3du",
        "IDYgcyBidWRnZXQsIGFuZCBpcyB0aGVuIHNlbnQgd2lsbFRlcm1pbmF0ZSBhbmQgdGVybWluYXRlZCB3aGVyZXZlciBpdCB3b3Vs",
        "ZAogIGhhdmUgYmVlbiBzdXNwZW5kZWQuIChpT1MgNCBuZXZlciBsZXRzIHN1Y2ggYW4gYXBwIGludG8gdGhlIGJhY2tncm91bmQ6",
        "IHRoYXQgaXMgRXhpdHNPblN1c3BlbmRTdHkgbGUgImltbWVkaWF0ZSIuKQogIEl0IGlzIHRoZSBTd2lmdCBzYW1wbGUgcHJvdG9j",
        "b2wgYXBwIChFeGFtcGxlcy9TYW1wbGVBcHAsIGJ1aWx0IGFzIHJ1bndheS1zYW1wbGUtYXBwIGJlc2lkZSB0aGUgcnVud2F5IGJp",
        "bmFyeSk6CiAgaXRzICtiYWNrZ3JvdW5kIHRhc2sgZW5kcyBhZnRlciAyIHMsIHRoZW4gaXQgZ2V0cyB3aWxsVGVybWluYXRlIGFu",
        "ZCBleGl0cy4KLS0+CjxwbGlzdCB2ZXJzaW9uPSIxLjAiPgo8ZGljdD4KICAgIDxrZXk+Q0ZCdW5kbGVJZGVudGlmaWVyPC9rZXk+",
        "CiAgICA8c3RyaW5nPmNvbS5leGFtcGxlLnVwbG9hZGVyPC9zdHJpbmc+CgogICAgPGtleT5DRkJ1bmRsZURpc3BsYXlOYW1lPC9r",
        "ZXk+CiAgICA8c3RyaW5nPlVwbG9hZGVyPC9zdHJpbmc+CgogICAgPCEtLSBBIHByb2Nlc3MgYXBwIChDMSkuIEEgYmFyZSBwcm9n",
        "cmFtIG5hbWUgaXMgbG9va2VkIHVwIGJlc2lkZSB0aGUgcnVud2F5IGJpbmFyeSBmaXJzdCwgdGhlbiBpbiBQQVRILiAtLT4KICAg",
        "IDxrZXk+UHJvZ3JhbUFyZ3VtZW50czwva2V5PgogICAgPGFycmF5PgogICAgICA8a2V5PkxvZ0ZpbGVDb3VudDwva2V5PiAgPHN0",
        "cmluZz5ydW53YXktc2FtcGxlLWFwcDwvc3RyaW5nPgogICAgPC9hcnJheT4KICAgIDxrZXk+RW52aXJvbm1lbnRWYXJpYWJsZXM8",
        "L2tleT4KICAgIDxkaWN0PgogICAgICAgIDxrZXk+U0FNUExFX1RBU0tfU0VDT05EUzwva2V5PgogICAgICAgIDxzdHJpbmc+Mjwv",
        "c3RyaW5nPgogICAgPC9kaWN0PgogICAgPCEtLSBTcGVha3MgdGhlIGFwcCBwcm90b2NvbCAoQTQpIHRocm91Z2ggUnVud2F5Q2xp",
        "ZW50LiAtLT4KICAgIDxrZXk+UnVud2F5UHJvdG9jb2w8L2tleT4KICAgIDxpbnRlZ2VyPv//////////////////////////////",
        "////////////////////////////////////////////////////////////////////////////////////////////////////",
        "/zE8L2ludGVnZXI+CgogICAgPCEtLSBUZXJtaW5hdGUgd2hlcmUgdGhlIGFwcCB3b3VsZCBiZSBzdXNwZW5kZWQgKEUxKS4gLS0+",
        "CiAgICA8a2V5PlVJQXBwbGljYXRpb25FeGl0c09uU3VzcGVuZDwva2V5PgogICAgPHRydWUvPgoKICAgIDwhLS0gImRyYWluIiAo",
        "ZmluaXNoIGJhY2tncm91bmQgdGFza3MgZmlyc3QsIHRoZW4gdGVybWluYXRlKSBvciAiaW1tZWRpYXRlIiAoaU9TIDQgZXhhxMTE",
        "xMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTE",
        "xMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExGN0bHkpLiBPdmVycmlkZXMgdGhlCiAgICAgICAgIEV4aXRzT25TdXNwZW5k",
        "U3R5bGUgb2YgUnVud2F5LnBsaXN0IGZvciB0aGlzIGFwcC4gLS0+CiAgICA8a2V5PkV4aXRzT25TdXNwZW5kU3R5bGU8L2tleT4K",
        "ICAgIDxzdHJpbmc+ZHJhaW48L3N0cmluZz4KCiAgICA8IS0tIFRoaXMgYXBwJ3MgYmFja2dyb3VuZCBidWRnZXQgaW4gc2Vjb25k",
        "cywgaW5zdGVhZCBvZiBSdW53YXkucGxpc3QncyBCYWNrZ3JvdW5kVGltZUJ1ZGdldCAoQjMpLiAtLT4KICAgIDxrZXk+UnVud2F5",
        "QmFja2dyb3VuZFRpbWVCdWRnZXQ8L2tleT4KICAgIDxyZWFsPjY8L3JlYWw+CjwvZGljdD4KPC9wbGlzdD4K",
    ].joined()

    @Test func C2_anXMLFileThatIsNotUTF8IsRefusedAsMalformedNamingTheFileNotDecoded() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = config.path + "/Apps/fuzzed.plist"
        try #require(Data(base64Encoded: Self.fuzzedFile)).write(to: URL(fileURLWithPath: file))

        let failure = loadError(config.path)

        #expect(failure?.code == .malformedFile, "\(String(describing: failure))")
        #expect(failure?.file == file)
        #expect(failure?.found?.hasPrefix("data that does not parse") == true)
    }
}
