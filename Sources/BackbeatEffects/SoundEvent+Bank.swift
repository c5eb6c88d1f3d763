import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

extension SoundEvent {
    /// Takes a bank entry's definition, with the lock held: its sounds,
    /// weights, mode and every setting, and starts picking afresh from its
    /// seed, as a new event would. Plays under way carry on as they were.
    /// An event a reload had removed is playable again.
    ///
    /// - Parameters:
    ///   - definition: The checked entry.
    ///   - sounds: Its sounds, in the entry's order.
    ///   - bus: The bus the entry names.
    func applyLocked(_ definition: BankDefinition.Event, sounds: [SoundEffect], bus: Bus?) {
        soundsValue = sounds
        weightsValue = definition.sounds.map(\.weight)
        soundLooping = definition.sounds.map { $0.loop == nil ? .once : .forever }
        modeValue = definition.mode
        avoidLast = max(0, definition.avoidLast)
        volumeValue = Voice.clampVolume(definition.volume, else: 1)
        randomizationValue = definition.randomization.bounded
        busValue = bus
        cooldownValue = max(.zero, definition.cooldown)
        instanceLimit = definition.maximumInstances.map { max(1, $0) }
        stealPolicyValue = definition.steal
        priorityValue = definition.priority
        generator = SplitMix64(seed: definition.seed)
        history = []
        bag = []
        lastShuffled = nil
        sequenceNext = 0
        removedFrom = nil
        removalReported = false
    }

    /// Whether the event is playable: false once a reload removed it from its bank.
    public var isPlayable: Bool { locked { removedFrom == nil } }
}
