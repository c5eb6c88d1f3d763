/// The capture's first record: the engine a replay must open to sound the same.
package struct CaptureOpening: Sendable, Equatable {
    /// How the original engine's output was set up.
    package enum OutputKind: UInt8, Sendable {
        case device = 0
        case offline = 1
        case file = 2
    }

    package var outputKind: OutputKind
    package var sampleRate: Int
    package var channelCount: Int
    /// The device's latency request (period size, periods); zero off a device.
    package var periodSize: Int
    package var periods: Int
    /// The device's name when the game asked for one.
    package var deviceName: String?
    package var maximumVoices: Int?
    /// The engine frame at which capture started (zero: from the engine's opening).
    package var startFrame: Int64
    /// The engine's update step, in frames.
    package var updateInterval: Int

    /// An opening record's contents.
    ///
    /// - Parameters:
    ///   - outputKind: The output kind.
    ///   - sampleRate: Frames a second.
    ///   - channelCount: Output channels.
    ///   - periodSize: The device's period, in frames (zero off a device).
    ///   - periods: The device's periods (zero off a device).
    ///   - deviceName: The device asked for, if any.
    ///   - maximumVoices: The voice cap the game set, if any.
    ///   - startFrame: The engine frame capture started at.
    ///   - updateInterval: The engine's update step, in frames.
    package init(
        outputKind: OutputKind, sampleRate: Int, channelCount: Int, periodSize: Int, periods: Int,
        deviceName: String?, maximumVoices: Int?, startFrame: Int64, updateInterval: Int
    ) {
        self.outputKind = outputKind
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.periodSize = periodSize
        self.periods = periods
        self.deviceName = deviceName
        self.maximumVoices = maximumVoices
        self.startFrame = startFrame
        self.updateInterval = updateInterval
    }

    /// Writes the record's payload.
    ///
    /// - Parameter encoder: Where to write it.
    package func encode(into encoder: inout CaptureEncoder) {
        encoder.append(UInt64(outputKind.rawValue))
        encoder.append(sampleRate)
        encoder.append(channelCount)
        encoder.append(periodSize)
        encoder.append(periods)
        encoder.appendOptional(deviceName) { $0.append($1) }
        encoder.appendOptional(maximumVoices) { $0.append($1) }
        encoder.append(startFrame)
        encoder.append(updateInterval)
    }

    /// Reads a record's payload.
    ///
    /// - Parameter decoder: The opening record's decoder.
    /// - Throws: ``CaptureFormatError`` for a value out of range.
    package init(from decoder: inout CaptureDecoder) throws(CaptureFormatError) {
        let kind = try decoder.uint64()
        guard kind <= 2, let outputKind = OutputKind(rawValue: UInt8(kind)) else {
            throw .malformed("unknown output kind \(kind)")
        }
        self.outputKind = outputKind
        sampleRate = try decoder.int(in: 8_000...384_000)
        channelCount = try decoder.int(in: 1...8)
        periodSize = try decoder.int(in: 0...65_536)
        periods = try decoder.int(in: 0...64)
        deviceName = try decoder.optional { decoder throws(CaptureFormatError) in try decoder.string() }
        maximumVoices = try decoder.optional { decoder throws(CaptureFormatError) in try decoder.int(in: 0...1_000_000)
        }
        startFrame = try decoder.int64()
        guard startFrame >= 0 else { throw .malformed("a negative start frame") }
        updateInterval = try decoder.int(in: 1...65_536)
    }
}
