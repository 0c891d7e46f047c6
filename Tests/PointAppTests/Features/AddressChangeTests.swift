import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

/// Moving to another address: a link to the new one, asked with the password; the old one told
/// once it is used; the browser signed in goes on under the new address.
struct AddressChangeTests {
  let old = EmailAddress("old@example.jp")!
  let new = EmailAddress("new@example.jp")!
  let token = Secret(String(repeating: "cd", count: 32))
  var expires: Date { noon.addingTimeInterval(AddressChangeFeature.linkLifetime) }

  func makeStore(signedIn: Bool = true, _ accounts: (inout AccountClient) -> Void = { _ in }) -> TestStoreOf<AppFeature> {
    var state = AppFeature.State()
    if signedIn { state.account = old }
    return appStore(state, accounts)
  }

  @Test func aLinkGoesToTheNewAddress() async {
    let store = makeStore {
      $0.requestAddressChange = { [expires, token] address, password, until in
        #expect(address.value == "new@example.jp" && password == "correct horse battery" && until == expires)
        return token
      }
    }
    await store.send(.addressChange(.submitted(newEmail: " New@Example.jp ", password: "correct horse battery"))) { $0.destination = .account }
    await store.receive(\.addressChange.linkIssued) { $0.outbox = [MailRequest(to: new, .addressChange(token: token, expires: expires))] }
    await store.receive(.addressChange(.delegate(.linkSent(new)))) {
      $0.flash = Flash(.success, "new@example.jp に確認メールを送りました。24時間以内にメールのリンクを開くと、変更が完了します。")
    }
  }

  @Test func whatCannotBeAnAddressOrIsTheSameIsRefusedBeforeAnythingIsAsked() async {
    let store = makeStore()
    await store.send(.addressChange(.submitted(newEmail: "not an address", password: "x"))) { $0.destination = .account }
    await store.receive(.addressChange(.delegate(.refused(.invalidEmail)))) { $0.flash = Flash(.error, AccountError.invalidEmail.message) }
    await store.send(.addressChange(.submitted(newEmail: "OLD@example.jp", password: "x")))
    await store.receive(.addressChange(.delegate(.refused(.sameAddress)))) { $0.flash = Flash(.error, AccountError.sameAddress.message) }
    await store.send(.addressChange(.submitted(newEmail: "new@example.jp", password: "")))
    await store.receive(.addressChange(.delegate(.refused(.passwordRequired)))) { $0.flash = Flash(.error, AccountError.passwordRequired.message) }
  }

  @Test func theLinkMovesTheAccountAndTellsTheOldAddress() async {
    let store = makeStore { $0.confirmAddressChange = { [old, new] _ in AddressMove(from: old, to: new) } }
    await store.send(.addressChange(.confirmTapped(token: token))) { $0.destination = .account }
    await store.receive(\.addressChange.confirmed.success) { $0.outbox = [MailRequest(to: old, .addressChanged(to: new), about: new)] }
    await store.receive(.addressChange(.delegate(.changed(AddressMove(from: old, to: new))))) {
      $0.identityChange = .signedIn(new)
      $0.flash = Flash(.success, "メールアドレスを new@example.jp に変更しました。")
    }
  }

  @Test func aUsedLinkOnAnotherBrowserSaysSo() async {
    let store = makeStore(signedIn: false) { $0.confirmAddressChange = { _ in throw AccountError.invalidLink } }
    await store.send(.addressChange(.confirmTapped(token: token))) { $0.destination = .login }
    await store.receive(.addressChange(.confirmed(.failure(.invalidLink))))
    await store.receive(.addressChange(.delegate(.refused(.invalidLink)))) { $0.flash = Flash(.error, AccountError.invalidLink.message) }
    await store.send(.addressChangePageRequested(token: "short")) { $0.destination = .notFound }
  }
}
