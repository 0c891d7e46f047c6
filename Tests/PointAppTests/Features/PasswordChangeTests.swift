import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

struct PasswordChangeTests {
  let address = EmailAddress("hanako@example.jp")!

  func makeStore(_ accounts: (inout AccountClient) -> Void = { _ in }) -> TestStoreOf<AppFeature> {
    var state = AppFeature.State()
    state.account = address
    return appStore(state, accounts)
  }

  @Test func theRightCurrentPasswordChangesItAndRenewsTheSession() async {
    let store = makeStore { $0.changePassword = { current, new in
      #expect(current == "correct horse battery" && new == "a brand new passphrase")
    } }
    await store.send(.passwordChange(.submitted(current: "correct horse battery", new: "a brand new passphrase"))) {
      $0.destination = .account
    }
    await store.receive(.passwordChange(.answered(.success(address))))
    await store.receive(.passwordChange(.delegate(.changed(address)))) {
      $0.identityChange = .signedIn(address)
      $0.flash = Flash(.success, "パスワードを変更しました。ほかの端末ではログアウトしました。")
    }
  }

  @Test func aWrongCurrentPasswordOrAWeakNewOneChangesNothing() async {
    let store = makeStore { $0.changePassword = { _, _ in throw AccountError.wrongPassword } }
    await store.send(.passwordChange(.submitted(current: "wrong guess", new: "a brand new passphrase"))) { $0.destination = .account }
    await store.receive(.passwordChange(.answered(.failure(.wrongPassword))))
    await store.receive(.passwordChange(.delegate(.refused(.wrongPassword)))) {
      $0.flash = Flash(.error, "パスワードが正しくありません。")
    }
    let weak = makeStore()  // the client is never asked
    await weak.send(.passwordChange(.submitted(current: "correct horse battery", new: "12345678"))) { $0.destination = .account }
    await weak.receive(.passwordChange(.delegate(.refused(.password(.common))))) {
      $0.flash = Flash(.error, PasswordProblem.common.message)
    }
  }
}
