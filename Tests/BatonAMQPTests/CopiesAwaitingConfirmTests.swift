import BatonAMQP
import Testing

/// The originals of tasks published again are acked once their copies are confirmed, in order,
/// each once, whatever the confirms' pace.
@Suite struct CopiesAwaitingConfirmTests {
    @Test func originalsAreReleasedAsTheirCopiesAreConfirmed() {
        var copies = CopiesAwaitingConfirm()
        let (a, b, c) = (BrokerReceipt(generation: 1, tag: 7), BrokerReceipt(generation: 1, tag: 8), BrokerReceipt(generation: 1, tag: 9))
        copies.add(a, copy: 3)
        copies.add(b, copy: 4)
        copies.add(c, copy: 6)
        #expect(copies.confirmed(through: 2).isEmpty, "a block holds every confirm back")
        #expect(copies.count == 3)
        #expect(copies.confirmed(through: 4) == [a, b])
        #expect(copies.confirmed(through: 4).isEmpty, "each original is acked once")
        #expect(copies.confirmed(through: 9) == [c])
        #expect(copies.isEmpty)
    }

    @Test func aLostConnectionForgetsThem() {
        var copies = CopiesAwaitingConfirm()
        copies.add(BrokerReceipt(generation: 2, tag: 1), copy: 1)
        copies.removeAll()
        #expect(copies.confirmed(through: 100).isEmpty)
    }
}
