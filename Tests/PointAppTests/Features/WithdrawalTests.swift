import ComposableTesting
import Dependencies
import Foundation
@testable import PointApp
import Testing

/// 退会: the password asked, refused while an exchange is under way; on success the profile and
/// every list go, a last mail says what was lost, and the browser is a guest.
struct WithdrawalTests {
  let address = EmailAddress("hanako@example.jp")!

  func makeStore(signedIn: Bool = true, progress: UserProgress = UserProgress(), _ accounts: (inout AccountClient) -> Void = { _ in }) -> TestStoreOf<AppFeature> {
    var state = AppFeature.State()
    state.progress = progress
    state.enteredEmail = "hanako@example.jp"
    if signedIn { state.account = address }
    return appStore(state, accounts)
  }

  @Test func leavingForgetsTheProfileAndMailsWhatWasLost() async {
    var ids = 0
    var progress = UserProgress.answered([.sweets], ids: &ids)
    _ = progress.saveProfile(.hanako, id: TransactionID(UUID(ids)), at: noon)
    let store = makeStore(progress: progress) {
      $0.withdraw = { password in
        #expect(password == "correct horse battery")
        return EmailAddress("hanako@example.jp")!
      }
    }
    await store.send(.withdrawal(.submitted(password: "correct horse battery"))) { $0.destination = .withdraw }
    await store.receive(\.withdrawal.answered.success) {
      $0.progress.forgetMember()
      $0.enteredEmail = nil
      $0.outbox = [MailRequest(to: address, .withdrawn(lost: progress.ledger.balance))]
    }
    await store.receive(.withdrawal(.delegate(.withdrawn(address)))) {
      $0.identityChange = .signedOut
      $0.destination = .withdrawn
    }
    #expect(store.state.progress.profile == nil && NoticeList.allCases.allSatisfy { !store.state.progress.notices.receives($0) })
    #expect(store.state.progress.ledger == progress.ledger, "the points stay where they were, with no one to use them")
  }

  @Test func aWrongPasswordChangesNothing() async {
    let store = makeStore { $0.withdraw = { _ in throw AccountError.wrongPassword } }
    await store.send(.withdrawal(.submitted(password: "guess"))) { $0.destination = .withdraw }
    await store.receive(.withdrawal(.answered(.failure(.wrongPassword))))
    await store.receive(.withdrawal(.delegate(.refused(.wrongPassword)))) { $0.flash = Flash(.error, AccountError.wrongPassword.message) }
  }

  @Test func anExchangeUnderWayOrAnEmptyPasswordIsRefusedBeforeAnythingIsAsked() async {
    var ids = 0
    let pending = UserProgress.exchanged(1, leavingPending: [1], ids: &ids)
    let store = makeStore(progress: pending)  // `withdraw` unimplemented: never called
    await store.send(.withdrawal(.submitted(password: "correct horse battery"))) { $0.destination = .withdraw }
    await store.receive(.withdrawal(.delegate(.refused(.exchangePending)))) { $0.flash = Flash(.error, AccountError.exchangePending.message) }
    let empty = makeStore()
    await empty.send(.withdrawal(.submitted(password: ""))) { $0.destination = .withdraw }
    await empty.receive(.withdrawal(.delegate(.refused(.passwordRequired)))) { $0.flash = Flash(.error, AccountError.passwordRequired.message) }
  }

  @Test func aGuestHasNoAccountToLeave() async {
    let store = makeStore(signedIn: false)
    await store.send(.withdrawPageRequested) { $0.destination = .login }
    await store.send(.withdrawal(.submitted(password: "x")))
    await store.receive(.withdrawal(.delegate(.refused(.sessionEnded)))) { $0.flash = Flash(.error, AccountError.sessionEnded.message) }
  }

  @Test func thePageShowsWhatLeavingLoses() async {
    let store = makeStore()
    await store.send(.withdrawPageRequested) {
      $0.destination = .withdraw
      $0.progress.recordVisit(on: today, at: noon)
    }
  }
}
