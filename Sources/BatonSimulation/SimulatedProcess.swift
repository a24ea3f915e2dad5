/// What the simulator does alike with a coordinator and a worker process: start it once its
/// down time is over, and count down a pause.
protocol SimulatedProcess: AnyObject {
    var name: String { get }
    var isUp: Bool { get }
    /// Steps still to stay down after a crash.
    var downFor: Int { get set }
    /// Steps still to stay paused (it takes no turns).
    var pausedFor: Int { get set }
    func start()
}
