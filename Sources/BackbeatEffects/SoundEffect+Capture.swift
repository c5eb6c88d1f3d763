import BackbeatCapture
import BackbeatEngine
import BackbeatMedia

/// What a capture keeps of a sound to make it again in a replay.
package enum SoundCaptureOrigin: Sendable {
    /// A file: its fingerprint and the loop points set through the API.
    case file(FileFingerprint, loopPoints: LoopPoints?)
    /// PCM made in code: its rate, channels, loop points and samples.
    case pcm(sampleRate: Int, channels: Int, loopPoints: LoopPoints?, samples: [Float])
    /// Encoded bytes from memory or an archive: the URL naming them, loop points, the bytes.
    case bytes(url: String, loopPoints: LoopPoints?, bytes: [UInt8])
    /// Too large to keep in the capture (over ``SoundCaptureOrigin/largestKept``): its size and hash.
    case tooLarge(url: String, size: Int64, hash: UInt64)

    /// In-memory sounds up to this many bytes are kept in the capture whole.
    package static let largestKept = 1 << 20

    /// Writes it.
    ///
    /// - Parameter encoder: Where to write it.
    package func encode(into encoder: inout CaptureEncoder) {
        func loop(_ points: LoopPoints?) {
            encoder.appendOptional(points) {
                $0.append($1.start)
                $0.append($1.end)
            }
        }
        switch self {
        case .file(let fingerprint, let points):
            encoder.appendFixed(UInt8(0))
            fingerprint.encode(into: &encoder)
            loop(points)
        case .pcm(let rate, let channels, let points, let samples):
            encoder.appendFixed(UInt8(1))
            encoder.append(rate)
            encoder.append(channels)
            loop(points)
            encoder.append(UInt64(samples.count))
            for sample in samples { encoder.append(sample) }
        case .bytes(let url, let points, let bytes):
            encoder.appendFixed(UInt8(2))
            encoder.append(url)
            loop(points)
            encoder.append(bytes: bytes)
        case .tooLarge(let url, let size, let hash):
            encoder.appendFixed(UInt8(3))
            encoder.append(url)
            encoder.append(size)
            encoder.appendFixed(hash)
        }
    }

    /// Reads one.
    ///
    /// - Parameter decoder: The record's decoder.
    package init(from decoder: inout CaptureDecoder) throws(CaptureFormatError) {
        func loop() throws(CaptureFormatError) -> LoopPoints? {
            try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) -> LoopPoints in
                let (start, end) = (try d.int64(), try d.int64())
                guard let points = try? LoopPoints(start: start, end: end) else {
                    throw .malformed("loop points \(start)..<\(end)")
                }
                return points
            }
        }
        switch try decoder.fixed(UInt8.self) {
        case 0:
            let fingerprint = try FileFingerprint(from: &decoder)
            self = .file(fingerprint, loopPoints: try loop())
        case 1:
            let rate = try decoder.int(in: 1...1_000_000)
            let channels = try decoder.int(in: 1...2)
            let points = try loop()
            let count = try decoder.count(maximum: Self.largestKept / 4, minimumBytesEach: 4)
            var samples = [Float]()
            samples.reserveCapacity(count)
            for _ in 0..<count { samples.append(try decoder.float()) }
            self = .pcm(sampleRate: rate, channels: channels, loopPoints: points, samples: samples)
        case 2:
            let url = try decoder.string()
            let points = try loop()
            self = .bytes(url: url, loopPoints: points, bytes: Array(try decoder.bytes(maximum: Self.largestKept)))
        case 3:
            self = .tooLarge(url: try decoder.string(), size: try decoder.int64(), hash: try decoder.fixed(UInt64.self))
        case let other:
            throw .malformed("sound origin \(other)")
        }
    }

    /// FNV-1a (64 bits), as ``FileFingerprint`` hashes files.
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

extension SoundEffect {
    /// How a replay makes this sound again (reads the file through to
    /// fingerprint it), and the file's bytes, up to 1 MiB, when `keepingFile`:
    /// a sound that follows its file may be reloaded from an edited one, and
    /// a replay then decodes the version the game had.
    ///
    /// - Parameter keepingFile: Whether to keep a file's bytes.
    func captureOrigin(keepingFile: Bool) -> (origin: SoundCaptureOrigin, bytes: [UInt8]?) {
        if keepingFile, case .asset(let asset) = origin, asset.readsURL, asset.url.isFileURL,
            let read = try? FileFingerprint.read(asset.url, keepingAtMost: CapturedFile.largestKept)
        {
            return (.file(read.fingerprint, loopPoints: asset.explicitLoopPoints), read.bytes)
        }
        return (captureOrigin, nil)
    }

    /// How a replay makes this sound again (reads the file through to fingerprint it).
    var captureOrigin: SoundCaptureOrigin {
        switch origin {
        case .buffer(let buffer, let loop):
            let samples = buffer.interleavedFloats
            guard samples.count * 4 <= SoundCaptureOrigin.largestKept else {
                let bytes = samples.lazy.flatMap { sample in
                    withUnsafeBytes(of: sample.bitPattern.littleEndian) { Array($0) }
                }
                return .tooLarge(url: name, size: Int64(samples.count * 4), hash: SoundCaptureOrigin.hash(bytes))
            }
            return .pcm(
                sampleRate: buffer.format.sampleRate, channels: buffer.format.channelCount, loopPoints: loop,
                samples: samples)
        case .asset(let asset):
            if asset.readsURL && asset.url.isFileURL {
                let fingerprint =
                    (try? FileFingerprint(of: asset.url)) ?? FileFingerprint(path: asset.url.path, size: 0, hash: 0)
                return .file(fingerprint, loopPoints: asset.explicitLoopPoints)
            }
            let url = asset.url.absoluteString
            guard let reader = try? asset.byteSourceReader() else {
                return .tooLarge(url: url, size: -1, hash: 0)
            }
            guard reader.size <= Int64(SoundCaptureOrigin.largestKept),
                let bytes = try? reader.bytes(at: 0, count: Int(reader.size))
            else {
                return .tooLarge(url: url, size: reader.size, hash: 0)
            }
            return .bytes(url: url, loopPoints: asset.explicitLoopPoints, bytes: bytes)
        }
    }

    /// The sound's id in the engine's capture, declaring it the first time
    /// the capture sees it; nil when no capture is on. With the lock held.
    ///
    /// - Parameter engine: Its engine.
    func captureIDLocked(_ engine: AudioEngine) -> UInt32? {
        guard let recorder = engine.captureRecorder else { return nil }
        if captureTag.generation == recorder.generation { return captureTag.id }
        // Read (and hashed) before the writer's lock is taken.
        let (origin, bytes) = captureOrigin(keepingFile: followsFile ?? engine.isServingMonitorsLocked)
        return engine.captureIDLocked(&captureTag, declaring: .effectsSoundDeclared) { encoder in
            encoder.append(name)
            origin.encode(into: &encoder)
            encoder.appendOptional(bytes) { $0.append(bytes: $1) }
        }
    }

    /// Records a limit set on the sound: `tag` and its value. With the lock held.
    func recordSettingLocked(_ tag: UInt8, _ value: (inout CaptureEncoder) -> Void) {
        guard let engine, let id = captureIDLocked(engine) else { return }
        engine.recordLocked(.effectsSoundSetting) { encoder in
            encoder.append(id)
            encoder.appendFixed(tag)
            value(&encoder)
        }
    }

    /// Records a play, as the game called it, once the pool has started
    /// it. With the lock held.
    ///
    /// The record's frame is the one the play asked for (``VoicePool``'s
    /// request frame), and for a play "now" on a real device, the frame the
    /// mixer started the sound on: a replay starts it there.
    func recordPlayLocked(
        _ id: UInt32, _ voice: Voice, engine: AudioEngine, time: MediaTime?, volume: Float, pan: Float,
        position: Audio3DPoint?, rate: Float, looping: Looping, priority: Int, bus: Bus?
    ) {
        let requested = voice.record.requestFrame
        let frame = time == nil ? max(requested, voice.heardStartFrameLocked(engine) ?? requested) : requested
        guard let busCode = Self.builtinBusCode(bus, engine: engine) else {
            // A bus of the game's own: its name makes the record any length.
            engine.recordLocked(.effectsVoicePlay, frame: frame) { e in
                e.append(id)
                e.append(voice.id.raw)
                EffectsCaptureCoding.encode(time, into: &e)
                e.append(volume)
                e.append(pan)
                EffectsCaptureCoding.encode(position, into: &e)
                e.append(rate)
                EffectsCaptureCoding.encode(looping, into: &e)
                e.append(priority)
                EffectsCaptureCoding.encode(bus, engine: engine, into: &e)
            }
            return
        }
        // The same bytes, written straight into the capture's block: a play
        // is what a game records most, and its record's cost is the play's
        // cost with capture on (`capture.trigger_overhead_us`).
        engine.recordLocked(.effectsVoicePlay, frame: frame, maximumPayloadBytes: Self.playRecordBytes) { e in
            e.append(id)
            e.append(voice.id.raw)
            e.append(time != nil)
            if let time {
                e.append(time.value)
                e.append(UInt64(UInt32(bitPattern: time.timescale)))
            }
            e.append(volume)
            e.append(pan)
            e.append(position != nil)
            if let position {
                e.append(position.x)
                e.append(position.y)
                e.append(position.z)
            }
            e.append(rate)
            switch looping {
            case .once: e.append(UInt64(0))
            case .times(let n):
                e.append(UInt64(1))
                e.append(n)
            case .forever: e.append(UInt64(2))
            }
            e.append(priority)
            e.appendFixed(busCode)
        }
    }

    /// The most bytes a play's record takes on a built-in bus: the ids (5
    /// and 10), the time (1 + 10 + 5), volume and pan (4 + 4), the point
    /// (1 + 12), rate (4), looping (1 + 10), priority (10), the bus (1).
    static let playRecordBytes = 5 + 10 + 16 + 8 + 13 + 4 + 11 + 10 + 1

    /// The code ``EffectsCaptureCoding/encode(_:engine:into:)`` writes for
    /// `bus` when it is one byte: the default bus or one of the engine's
    /// own; nil for a bus of the game's, which it names.
    ///
    /// - Parameters:
    ///   - bus: The bus a play asked for, or nil.
    ///   - engine: Its engine.
    static func builtinBusCode(_ bus: Bus?, engine: AudioEngine) -> UInt8? {
        guard let bus else { return 0 }
        if bus === engine.masterBus { return 1 }
        if bus === engine.musicBus { return 2 }
        if bus === engine.effectsBus { return 3 }
        return nil
    }
}

extension SoundEffect {
    /// Starts loading without a record: a bank's own preload, which a replay
    /// of the bank does again by itself.
    func preloadUnrecorded() {
        guard let engine else { return }
        engine.withLock { engine.effectCacheLocked.loadLocked(self) }
        engine.deliverPendingEvents()
    }
}
