import EarshotCore
@testable import EarshotServer
import XCTest

/// A stream's producer learns that its client went away: from `send` when it has something to send, and from
/// `onCancel` when it may have nothing for a long time (a live session whose reader left gets no more audio).
final class ByteChannelTests: XCTestCase {
    func testTheCancelActionRunsOnceWhenTheClientGoesAndAtOnceWhenItHasGone() {
        let channel = ByteChannel()
        let runs = Locked(0)
        channel.onCancel { runs.withLock { $0 += 1 } }
        XCTAssertTrue(channel.send(Data("event: x\n\n".utf8)))
        XCTAssertEqual(runs.withLock { $0 }, 0, "not before the client goes")
        channel.cancel()
        channel.cancel()
        XCTAssertEqual(runs.withLock { $0 }, 1, "once")
        XCTAssertFalse(channel.send(Data("event: y\n\n".utf8)), "nothing more is taken")

        let late = Locked(false)
        channel.onCancel { late.withLock { $0 = true } }
        XCTAssertTrue(late.withLock { $0 }, "an action given after the client went runs at once")
    }

    func testAFinishedStreamRunsNoCancelActionUntilTheServerLetsItGo() {
        let channel = ByteChannel()
        let ran = Locked(false)
        channel.onCancel { ran.withLock { $0 = true } }
        channel.finish()
        XCTAssertFalse(ran.withLock { $0 })
        channel.cancel()  // the server frees the stream's response once its end went out
        XCTAssertTrue(ran.withLock { $0 })
    }
}
