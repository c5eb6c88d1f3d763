/// Reaches the other programs playing audio, to ask them to stop or to lower
/// their level. On Linux a desktop implementation can use MPRIS; without one,
/// the requests still appear in ``SessionUpdate/actions``.
package protocol OtherAudioController: AnyObject, Sendable {
    /// Asks other audio to stop (pause).
    func interruptOtherAudio()
    /// Asks other audio to lower its level until ``restoreOtherAudio()``.
    func duckOtherAudio()
    /// Tells other audio it may return to its level.
    func restoreOtherAudio()
}
