import BackbeatCapture
import BackbeatEngine
import BackbeatMedia

// An adaptive player in a capture: declared with its sections (names,
// tempos, stems and their assets); transitions, stingers and layers are
// recorded as the game asked for them.
extension AdaptiveMusicPlayer: CapturedMusicPlayer {
    func captureIDLocked() -> UInt32? {
        guard let engine = core.engine, engine.captureRecorder != nil else { return nil }
        if isDeclaredLocked { return captureTag.id }
        let ordered = sections.keys.sorted().compactMap { sections[$0]?.section }
        return declareLocked(engine, .adaptivePlayerDeclare) { encoder in
            encoder.append(UInt64(ordered.count))
            for section in ordered {
                encoder.append(section.name)
                encoder.appendOptional(section.tempo) { encoder, tempo in
                    encoder.append(tempo.beatsPerMinute)
                    encoder.append(tempo.beatsPerBar)
                    encoder.append(tempo.beatUnit)
                }
                encoder.append(UInt64(section.stems.count))
                for stem in section.stems {
                    encoder.append(stem.layer)
                    MusicCaptureValues.encode(stem.asset, into: &encoder)
                }
            }
        }
    }

    /// Records a transition that succeeded.
    func recordTransitionLocked(
        to section: String, quantization: MusicQuantization, style: MusicTransitionStyle, via segment: AudioAsset?
    ) {
        record(.adaptiveTransition) { encoder in
            encoder.append(section)
            encoder.append(quantization.rawValue)
            switch style {
            case .cut: encoder.append(UInt64(0))
            case .crossfade(let duration):
                encoder.append(UInt64(1))
                EngineCaptureValues.encode(duration, into: &encoder)
            }
            encoder.appendOptional(segment) { MusicCaptureValues.encode($1, into: &$0) }
        }
    }

    /// Records a stinger that started.
    func recordStingerLocked(_ asset: AudioAsset, quantization: MusicQuantization) {
        record(.adaptiveStinger) { encoder in
            MusicCaptureValues.encode(asset, into: &encoder)
            encoder.append(quantization.rawValue)
        }
    }

    /// Records a layer's or the volume's binding to a game parameter.
    func recordBindingLocked(_ kind: CaptureKind, parameter: GameParameter, curve: ParameterCurve, layer: String?) {
        guard let parameterID = parameter.captureIDLocked() else { return }
        record(kind) { encoder in
            if let layer { encoder.append(layer) }
            encoder.append(parameterID)
            EngineCaptureValues.encode(curve, into: &encoder)
        }
    }
}
