import BackbeatSupport

extension BackbeatError.Code {
    /// The player's queue is empty.
    public static let emptyQueue = Self("queue is empty")
}
