import BackbeatSupport
import COpenAL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ALDevice {
    /// OpenAL's default output device now. `ALC_DEFAULT_ALL_DEVICES_SPECIFIER`
    /// is the first entry of the last probed list, so the list is probed
    /// again first. Nil when OpenAL lists no device.
    ///
    /// Probing talks to the sound server: on a frozen server it blocks (30 s
    /// with PulseAudio), so never call it on the engine's thread or under
    /// the engine lock.
    package static func defaultPlaybackDeviceName() -> String? {
        ALLog.prepare()
        guard alcIsExtensionPresent(nil, "ALC_ENUMERATE_ALL_EXT") == ALC_TRUE else { return nil }
        _ = alcGetString(nil, ALCenum(ALC_ALL_DEVICES_SPECIFIER))
        guard let name = alcGetString(nil, ALCenum(ALC_DEFAULT_ALL_DEVICES_SPECIFIER)) else { return nil }
        let text = String(cString: name)
        return text.isEmpty ? nil : text
    }

    /// The period the device got, in frames, from `ALC_REFRESH`. OpenAL
    /// reports rate ÷ period truncated, so this is Backbeat's configured
    /// period when the device's refresh agrees with it, and otherwise the
    /// nearest whole period to rate ÷ refresh (1024 at 48 kHz reads 46, which
    /// gives 1043). Nil for a loopback device or a closed one.
    package var periodFrames: Int? {
        guard !isLoopback, let device else { return nil }
        var refresh: ALCint = 0
        alcGetIntegerv(device, ALCenum(ALC_REFRESH), 1, &refresh)
        guard refresh > 0, sampleRate > 0 else { return nil }
        // Refresh is rate ÷ period, truncated, so several periods read the
        // same: the one Backbeat configured when it agrees, else the nearest.
        if let configured = ALConfig.periodsInEffect?.size, configured > 0, sampleRate / configured == Int(refresh) {
            return configured
        }
        return Int((Double(sampleRate) / Double(refresh)).rounded())
    }

    /// Measures the output latency a playing source sees: plays a silent
    /// looping source and reads the latency part of
    /// `AL_SEC_OFFSET_LATENCY_SOFT` `count` times, `intervalMilliseconds`
    /// apart. Returns the mean and the largest reading, in seconds, or nil
    /// when the device cannot play a source (loopback, closed, disconnected).
    ///
    /// It sleeps between readings: call it off the engine's thread and not
    /// under the engine lock.
    package func measureSourceLatency(count: Int = 20, intervalMilliseconds: Int = 10) -> (mean: Double, max: Double)? {
        guard !isLoopback, isConnected, count > 0 else { return nil }
        var source: ALuint = 0
        var buffer: ALuint = 0
        let started: Bool =
            (try? withContext("alSourcePlay") { () -> Bool in
                alGetError()
                alGenSources(1, &source)
                alGenBuffers(1, &buffer)
                let silence = [Int16](repeating: 0, count: 4_800)
                silence.withUnsafeBytes { bytes in
                    alBufferData(buffer, AL_FORMAT_MONO16, bytes.baseAddress, ALsizei(bytes.count), ALsizei(sampleRate))
                }
                alSourcei(source, AL_BUFFER, ALint(buffer))
                alSourcei(source, AL_LOOPING, AL_TRUE)
                alSourcePlay(source)
                return alGetError() == AL_NO_ERROR
            }) ?? false
        defer {
            _ = try? withContext("alDeleteSources") {
                alSourceStop(source)
                alDeleteSources(1, &source)
                alDeleteBuffers(1, &buffer)
            }
        }
        guard started else { return nil }
        var readings: [Double] = []
        for index in 0..<count {
            if index > 0 {
                var request = timespec(tv_sec: 0, tv_nsec: intervalMilliseconds * 1_000_000)
                var remaining = timespec()
                while nanosleep(&request, &remaining) < 0 && errno == EINTR { request = remaining }
            }
            guard isConnected else { return nil }
            let reading: Double? = try? withContext {
                var values: [ALdouble] = [0, 0]
                alGetSourcedvSOFT(source, AL_SEC_OFFSET_LATENCY_SOFT, &values)
                return alGetError() == AL_NO_ERROR ? values[1] : nil
            }
            if let reading, reading.isFinite, reading >= 0 { readings.append(reading) }
        }
        guard !readings.isEmpty else { return nil }
        return (readings.reduce(0, +) / Double(readings.count), readings.max() ?? 0)
    }
}
