import BackbeatSupport
import Foundation
import Glibc
import Testing

@testable import BackbeatTelemetry

@Suite struct TelemetryServerTests {
    @Test func helloComesFirst() throws {
        try withServer { server, _ in
            let client = try TelemetryClient(path: server.path)
            #expect(try client.readHello() == testHello)
            #expect(server.clientCount == 1)
            #expect(server.requestedRate == TelemetryProtocol.defaultRate)
        }
    }

    @Test func folderIsPrivateAndSocketOwnerOnly() throws {
        try withServer { server, root in
            var status = stat()
            #expect(lstat(root + "/backbeat", &status) == 0)
            #expect(status.st_mode & 0o7777 == 0o700)
            #expect(lstat(server.path, &status) == 0)
            #expect(status.st_mode & S_IFMT == S_IFSOCK)
            #expect(status.st_mode & 0o777 == 0o600)
        }
    }

    @Test func openFolderIsMadePrivate() throws {
        try withTemporaryDirectory { root in
            #expect(mkdir(root + "/backbeat", 0o755) == 0)
            #expect(chmod(root + "/backbeat", 0o757) == 0)
            let server = try TelemetryServer(path: root + "/backbeat/1.sock", hello: testHello) { _ in .ok(id: nil) }
            defer { server.close() }
            var status = stat()
            #expect(lstat(root + "/backbeat", &status) == 0)
            #expect(status.st_mode & 0o7777 == 0o700)
        }
    }

    @Test func refusesAFolderThatIsALink() throws {
        try withTemporaryDirectory { root in
            #expect(mkdir(root + "/elsewhere", 0o700) == 0)
            #expect(symlink(root + "/elsewhere", root + "/backbeat") == 0)
            #expect(throws: TelemetryServerError.self) {
                try TelemetryServer(path: root + "/backbeat/1.sock", hello: testHello) { _ in .ok(id: nil) }
            }
        }
    }

    @Test(arguments: ["relative.sock", "folder/relative.sock", "/root.sock"])
    func refusesAPathWithoutAnAbsoluteFolder(_ path: String) {
        #expect(throws: TelemetryServerError.self) {
            try TelemetryServer(path: path, hello: testHello) { _ in .ok(id: nil) }
        }
    }

    @Test func socketIsRemovedOnClose() throws {
        try withTemporaryDirectory { root in
            let path = root + "/backbeat/1.sock"
            let server = try TelemetryServer(path: path, hello: testHello) { _ in .ok(id: nil) }
            #expect(access(path, F_OK) == 0)
            server.close()
            #expect(access(path, F_OK) != 0)
            server.close()
            #expect(throws: TelemetryClientError.self) { try TelemetryClient(path: path) }
        }
    }

    @Test func staleSocketIsReplaced() throws {
        try withTemporaryDirectory { root in
            let path = root + "/backbeat/1.sock"
            #expect(mkdir(root + "/backbeat", 0o700) == 0)
            // A crashed game's socket: bound, then its process gone without removing it.
            let crashed = try #require(try? TelemetrySocket.makeStream(nonBlocking: false).get())
            #expect(TelemetrySocket.withAddress(of: path) { bind(crashed, $0, $1) } == 0)
            close(crashed)
            #expect(access(path, F_OK) == 0)
            #expect(throws: TelemetryClientError.self) { try TelemetryClient(path: path) }

            let server = try TelemetryServer(path: path, hello: testHello) { _ in .ok(id: nil) }
            defer { server.close() }
            #expect(try TelemetryClient(path: path).readHello() == testHello)
        }
    }

    @Test func liveSocketIsRefused() throws {
        try withServer { (server, _) throws in
            #expect {
                try TelemetryServer(path: server.path, hello: testHello) { _ in .ok(id: nil) }
            } throws: { error in
                "\(error)" == "another engine in this process is already monitoring at \(server.path)"
            }
            // The first server still serves.
            #expect(try TelemetryClient(path: server.path).readHello() == testHello)
        }
    }

    /// A device's update step builds a snapshot at the first step after it
    /// is due, up to a period late: a late one followed by one on time is
    /// not early to the client, which counts in due times.
    @Test func aSnapshotBuiltLateDoesNotMakeTheNextLookEarly() throws {
        let times = try withServer { server, _ in
            try Self.snapshotTimesRead(publishing: Self.lateThenOnTime, on: server)
        }
        #expect(times == Self.lateThenOnTime)
    }

    /// Ten snapshot times a tenth of a second apart, every other one 90 ms late.
    static let lateThenOnTime: [Double] = (0..<10).map { step in
        let due = Double(step) / 10
        return step % 2 == 0 ? due + 0.09 : due
    }

    /// Publishes a snapshot at each of `times`, due a tenth of a second
    /// apart from 0, to a client reading 10 a second, and returns the times
    /// of the snapshots it read.
    static func snapshotTimesRead(publishing times: [Double], on server: TelemetryServer) throws -> [Double] {
        let client = try TelemetryClient(path: server.path)
        _ = try client.readHello()
        try client.send(TelemetryCommand(id: 1, action: .rate(10)))
        _ = try client.read { $0.reply != nil }
        var lines: [TelemetryLine] = []
        for (step, time) in times.enumerated() {
            server.publish(makeSnapshot(time: time), due: Double(step) / 10)
            server.publish(TelemetryEvent(time: time, event: .voiceStarted, voice: UInt64(step)))
            let (marker, before) = try client.read { $0.event?.voice == UInt64(step) }
            lines += before + [marker]
        }
        server.publish(TelemetryEvent(time: 1, event: .voiceStarted, voice: 1000))
        while let line = try client.next() {
            if line.event?.voice == 1000 { break }
            lines.append(line)
        }
        return lines.compactMap { $0.snapshot?.time }
    }

    @Test func snapshotsFollowEachClientsRateInEngineTime() throws {
        try withServer { server, _ in
            let slow = try TelemetryClient(path: server.path)
            let fast = try TelemetryClient(path: server.path)
            _ = try slow.readHello()
            _ = try fast.readHello()
            try fast.send(TelemetryCommand(id: 1, action: .rate(50)))
            #expect(try fast.read { $0.reply != nil }.0.reply == .ok(id: 1))
            #expect(server.requestedRate == 50)

            // A snapshot every 10 ms of engine time for one second; each
            // followed by an event, which both clients read before the next
            // publish, so that the server sees every snapshot.
            var slowLines: [TelemetryLine] = []
            var fastLines: [TelemetryLine] = []
            for step in 0..<100 {
                let time = Double(step) / 100
                server.publish(makeSnapshot(time: time))
                server.publish(TelemetryEvent(time: time, event: .voiceStarted, voice: UInt64(step)))
                for (client, lines) in [(slow, 0), (fast, 1)] {
                    let (marker, before) = try client.read { $0.event?.voice == UInt64(step) }
                    if lines == 0 { slowLines += before + [marker] } else { fastLines += before + [marker] }
                }
            }
            // The last snapshot may follow its event.
            server.publish(TelemetryEvent(time: 1, event: .voiceStarted, voice: 1000))
            for (client, lines) in [(slow, 0), (fast, 1)] {
                var tail: [TelemetryLine] = []
                while let line = try client.next() {
                    if line.event?.voice == 1000 { break }
                    tail.append(line)
                }
                if lines == 0 { slowLines += tail } else { fastLines += tail }
            }

            let slowTimes = slowLines.compactMap(\.snapshot?.time)
            let fastTimes = fastLines.compactMap(\.snapshot?.time)
            #expect(slowTimes == (0..<10).map { Double($0 * 10) / 100 })
            #expect(fastTimes == (0..<50).map { Double($0 * 2) / 100 })
        }
    }

    @Test func requestedRateFollowsClients() throws {
        try withServer { server, _ in
            #expect(server.requestedRate == 0)
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            #expect(server.requestedRate == 10)
            try client.send(TelemetryCommand(id: 7, action: .rate(60)))
            #expect(try client.read { $0.reply != nil }.0.reply == .ok(id: 7))
            #expect(server.requestedRate == 60)
            client.close()
            #expect(waitUntil { server.requestedRate == 0 && server.clientCount == 0 })
        }
    }

    @Test func whatWasPublishedBeforeAClientCameIsNotSentToIt() throws {
        try withServer { server, _ in
            for index in 0..<1_000 {
                server.publish(TelemetryEvent(time: Double(index), event: .voiceStarted, voice: UInt64(index)))
                server.publish(makeSnapshot(time: Double(index)))
            }
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            server.publish(TelemetryEvent(time: 2_000, event: .voiceStopped, voice: 2_000))
            #expect(try client.next()?.event?.voice == 2_000)
        }
    }

    @Test func eventsReachEveryClient() throws {
        try withServer { server, _ in
            let clients = try (0..<3).map { _ in try TelemetryClient(path: server.path) }
            for client in clients { _ = try client.readHello() }
            let events = [
                TelemetryEvent(time: 0.5, event: .voiceStolen, voice: 3, name: "boom.wav"),
                TelemetryEvent(time: 0.5, event: .loadFailed, name: "bank.json", message: "no such file"),
                TelemetryEvent(time: 0.75, event: .underrun, name: "music"),
            ]
            for event in events { server.publish(event) }
            for client in clients {
                #expect(try (0..<3).map { _ in try client.next()?.event } == events)
            }
        }
    }

    /// A snapshot goes out from the publishing thread when it can, and
    /// through the server's thread when events wait or that thread is busy
    /// (where a newer one may replace it): either way a client reads every
    /// event in order, and snapshots only ever newer, ending with the newest.
    @Test func eventsAndSnapshotsKeepTheirOrderWhicheverThreadSendsThem() throws {
        try withServer { server, _ in
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            var published: [Double] = []
            for second in 0..<200 {
                if second % 3 != 2 {
                    server.publish(
                        TelemetryEvent(time: Double(second), event: .voiceStarted, voice: UInt64(second)))
                    published.append(Double(second))
                }
                // A second apart: each is due at the default rate.
                server.publish(makeSnapshot(time: Double(second) + 0.5))
            }
            var events: [Double] = []
            var snapshots: [Double] = []
            while snapshots.last != 199.5 {
                let line = try #require(try client.next())
                if let event = line.event { events.append(event.time) }
                if let snapshot = line.snapshot { snapshots.append(snapshot.time) }
            }
            #expect(events == published)
            #expect(snapshots == snapshots.sorted() && Set(snapshots).count == snapshots.count)
        }
    }

    @Test func setGoesToTheHandlerAndItsReplyComesBackWithTheID() throws {
        let log = CommandLog()
        let refusing: @Sendable (TelemetryCommand) -> String? = {
            $0.action == .set(.parameter(name: "nope", value: 1)) ? "no parameter nope" : nil
        }
        try withServer(log: log, refusing: refusing) { server, _ in
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            let set = TelemetryCommand(id: 12, action: .set(.busVolume(bus: "music", volume: 0.5)))
            try client.send(set)
            #expect(try client.read { $0.reply != nil }.0.reply == .ok(id: 12))
            let refused = TelemetryCommand(id: 13, action: .set(.parameter(name: "nope", value: 1)))
            try client.send(refused)
            #expect(try client.read { $0.reply != nil }.0.reply == .error("no parameter nope", id: 13))
            try client.send(TelemetryCommand(id: nil, action: .reload))
            #expect(try client.read { $0.reply != nil }.0.reply == .ok(id: nil))
            #expect(log.all == [set, refused, TelemetryCommand(id: nil, action: .reload)])
        }
    }

    @Test func malformedLinesGetOneErrorEachAndChangeNothing() throws {
        let log = CommandLog()
        try withServer(log: log) { server, _ in
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            let lines = [
                "garbage", #"{"op":"launch"}"#, #"{"op":"rate","value":0}"#, #"{"op":"rate","value":1e300}"#,
                #"{"op":"set","key":"bus.music.volume","value":-1}"#, #"{"op":"set","key":"x","value":1,"id":1e40}"#,
                "\u{0}\u{1}\u{ff}", String(repeating: "[", count: 60_000),
                String(repeating: #"{"op":"#, count: 10_000), "\"" + String(repeating: "\\u0000", count: 10_000),
            ]
            for line in lines { try client.send(line: line) }
            for _ in lines {
                let reply = try #require(try client.next()?.reply)
                #expect(reply.type == "error")
                #expect(reply.message?.isEmpty == false)
            }
            #expect(log.all.isEmpty)
            #expect(server.requestedRate == TelemetryProtocol.defaultRate)
            // Still served after them.
            try client.send(TelemetryCommand(id: 2, action: .rate(20)))
            #expect(try client.next()?.reply == .ok(id: 2))
        }
    }

    @Test func garbageWithoutANewlineClosesThatClientOnly() throws {
        try withServer { server, _ in
            let flooder = try TelemetryClient(path: server.path)
            _ = try flooder.readHello()
            let garbage = [UInt8](repeating: UInt8(ascii: "x"), count: 10 * 1024 * 1024)
            var offset = 0
            while offset < garbage.count {
                let sent = garbage.withUnsafeBytes { raw in
                    send(flooder.descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                }
                if sent <= 0 { break }
                offset += sent
            }
            #expect(offset < garbage.count)
            let reply = try #require(try flooder.next()?.reply)
            #expect(reply.type == "error")
            #expect(reply.message?.contains("longer than") == true)
            #expect(try flooder.next() == nil)

            let fresh = try TelemetryClient(path: server.path)
            _ = try fresh.readHello()
            server.publish(makeSnapshot(time: 3))
            #expect(try fresh.next()?.snapshot?.time == 3)
        }
    }

    @Test func aHundredConnectionsAtOnceServeSixteen() throws {
        try withServer { server, _ in
            let clients = try (0..<100).map { _ in try TelemetryClient(path: server.path) }
            var hellos = 0
            var refusals = 0
            for client in clients {
                switch try client.next() {
                case .hello: hellos += 1
                case .reply(let reply) where reply.message?.contains("too many monitor clients") == true:
                    refusals += 1
                    #expect(try client.next() == nil)
                default: Issue.record("neither a hello nor a refusal")
                }
            }
            #expect(hellos == TelemetryServerLoop.maximumClients)
            #expect(refusals == 100 - TelemetryServerLoop.maximumClients)
            for client in clients { client.close() }

            let fresh = try TelemetryClient(path: server.path)
            #expect(try fresh.readHello() == testHello)
            server.publish(makeSnapshot(time: 1))
            #expect(try fresh.next()?.snapshot?.time == 1)
        }
    }

    @Test func aClientThatNeverReadsGetsTheNewestSnapshotNotABacklog() throws {
        try withServer { server, _ in
            let sleeper = try TelemetryClient(path: server.path)
            _ = try sleeper.readHello()
            // Big snapshots, each due (10 a second at the default rate), fill the socket at once.
            let template = makeSnapshot(time: 0, voices: 256)
            for step in 0..<10_000 {
                var snapshot = template
                snapshot.time = Double(step) / 10
                server.publish(snapshot)
            }
            let newest = Double(9_999) / 10
            let (_, before) = try sleeper.read { $0.snapshot?.time == newest }
            // What the socket's buffer held when the server found it full; the rest were replaced.
            #expect(before.count < 100)
            #expect(before.allSatisfy { $0.snapshot != nil })
        }
    }

    @Test func aClientThatNeverReadsIsToldHowManyEventsItMissed() throws {
        try withServer { server, _ in
            let sleeper = try TelemetryClient(path: server.path)
            _ = try sleeper.readHello()
            let count = 20_000
            let message = String(repeating: "m", count: 1_000)
            for index in 0..<count {
                server.publish(
                    TelemetryEvent(time: Double(index), event: .voiceStarted, voice: UInt64(index), message: message))
            }
            var received = 0
            var dropped = 0
            var last: UInt64 = 0
            while last != UInt64(count - 1) {
                let event = try #require(try sleeper.next()?.event)
                if event.event == .dropped {
                    let number = event.message?.split(separator: " ").first.flatMap { Int($0) }
                    dropped += try #require(number)
                } else {
                    #expect(event.voice.map { $0 >= last } == true)
                    last = event.voice ?? 0
                    received += 1
                }
            }
            #expect(dropped > 0)
            #expect(received + dropped == count)
        }
    }

    @Test func pipelinedCommandsAreEachAnsweredInOrder() throws {
        let log = CommandLog()
        try withServer(log: log) { server, _ in
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            // Far more than the replies a client may have waiting: the
            // server holds the rest back until these are read.
            let commands = (0..<500).map { TelemetryCommand(id: $0, action: .set(.parameter(name: "p", value: 1))) }
            try client.send(line: commands.map(\.line).joined(separator: "\n"))
            for command in commands {
                #expect(try client.next()?.reply == .ok(id: command.id))
            }
            #expect(log.all == commands)
        }
    }

    @Test func closingLeavesAnotherServersSocketAlone() throws {
        try withTemporaryDirectory { root in
            let path = root + "/backbeat/1.sock"
            let first = try TelemetryServer(path: path, hello: testHello) { _ in .ok(id: nil) }
            // Someone removed the first server's file and a second server took the path.
            #expect(unlink(path) == 0)
            let second = try TelemetryServer(path: path, hello: testHello) { _ in .ok(id: nil) }
            defer { second.close() }
            first.close()
            #expect(access(path, F_OK) == 0)
            #expect(try TelemetryClient(path: path).readHello() == testHello)
        }
    }

    @Test func closingFromTheHandlerDoesNotHang() throws {
        try withTemporaryDirectory { root in
            let box = LockedValueBox<TelemetryServer?>(nil)
            let server = try TelemetryServer(path: root + "/backbeat/1.sock", hello: testHello) { command in
                box.withLockedValue { $0 }?.close()
                return .ok(id: command.id)
            }
            box.withLockedValue { $0 = server }
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            try client.send(TelemetryCommand(id: 1, action: .reload))
            #expect(try client.next()?.reply == .ok(id: 1))
            #expect(try client.next() == nil)
            #expect(waitUntil { access(server.path, F_OK) != 0 })
            box.withLockedValue { $0 = nil }
        }
    }
}
