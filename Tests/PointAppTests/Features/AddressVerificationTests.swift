import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

/// Proving the address: a link at registration and on request (throttled), used once from any
/// browser; exchanges wait for it.
struct AddressVerificationTests {
  let address = EmailAddress("hanako@example.jp")!
  let token = Secret(String(repeating: "ab", count: 32))
  var expires: Date { noon.addingTimeInterval(AddressVerification.linkLifetime) }

  func makeStore(
    signedIn: Bool = true, status: AddressStatus? = AddressStatus(), now: Date = noon, _ accounts: (inout AccountClient) -> Void = { _ in }
  ) -> TestStoreOf<AppFeature> {
    var state = AppFeature.State()
    if signedIn { (state.account, state.addressStatus) = (address, status) }
    return appStore(state, now: now, accounts)
  }

  @Test func registeringSendsTheFirstLinkByMail() async {
    let store = makeStore(signedIn: false) {
      $0.register = { email, _ in SignIn(email: email) }
      $0.issueVerification = { [expires] email, until in
        #expect(email.value == "hanako@example.jp" && until == expires)
        return Secret(String(repeating: "ab", count: 32))
      }
    }
    await store.send(.signInForm(.submitted(.register, email: "hanako@example.jp", password: "correct horse battery"))) {
      $0.signInFormKind = .register
      $0.signInFormEmail = "hanako@example.jp"
      $0.destination = .register
    }
    await store.receive(\.signInForm.answered.success)
    await store.receive(\.signInForm.delegate.signedIn) {
      $0.destination = .points
      $0.identityChange = .signedIn(address)
      $0.flash = Flash(.success, "登録しました。hanako@example.jp に確認メールを送りました。メールのリンクを開くと、ポイントを交換できるようになります。")
    }
    await store.receive(\.addressVerification.registered)
    await store.receive(\.addressVerification.linkIssued) {
      $0.outbox = [MailRequest(to: address, .addressVerification(token: token, expires: expires))]
    }
    await store.receive(.addressVerification(.delegate(.linkSent(address, resent: false))))  // the registration's message stays
  }

  @Test func aLinkIsSentAgainAtMostOnceAMinuteAndThreeTimesAnHour() async {
    let sent = [noon.addingTimeInterval(-3000), noon.addingTimeInterval(-1200)]
    let store = makeStore(status: AddressStatus(linksSent: sent)) { $0.issueVerification = { [token] _, _ in token } }
    await store.send(.addressVerification(.resendTapped)) { $0.destination = .account }
    await store.receive(.addressVerification(.linkIssued(address, expires: expires, resent: true, .success(token)))) {
      $0.outbox = [MailRequest(to: address, .addressVerification(token: token, expires: expires))]
      $0.addressStatus?.linksSent = sent + [noon]
    }
    await store.receive(.addressVerification(.delegate(.linkSent(address, resent: true)))) {
      $0.flash = Flash(.success, "hanako@example.jp に確認メールを送りました。24時間以内にリンクを開いてください。")
    }

    // A third within the hour: refused, nothing sent.
    let third = makeStore(status: AddressStatus(linksSent: sent + [noon.addingTimeInterval(-120)]))
    await third.send(.addressVerification(.resendTapped)) { $0.destination = .account }
    await third.receive(.addressVerification(.delegate(.refused(.tooManyLinks)))) {
      $0.flash = Flash(.error, AccountError.tooManyLinks.message)
    }
    // Within a minute of the last: refused.
    let soon = makeStore(status: AddressStatus(linksSent: [noon.addingTimeInterval(-59)]))
    await soon.send(.addressVerification(.resendTapped)) { $0.destination = .account }
    await soon.receive(.addressVerification(.delegate(.refused(.tooManyLinks)))) {
      $0.flash = Flash(.error, AccountError.tooManyLinks.message)
    }
    // Verified already, or signed out: nothing to send.
    let verified = makeStore(status: AddressStatus(verifiedAt: noon))
    await verified.send(.addressVerification(.resendTapped)) { $0.destination = .account }
    await verified.receive(.addressVerification(.delegate(.refused(.alreadyVerified)))) {
      $0.flash = Flash(.error, AccountError.alreadyVerified.message)
    }
    let guest = makeStore(signedIn: false)
    await guest.send(.addressVerification(.resendTapped)) { $0.destination = .login }
    await guest.receive(.addressVerification(.delegate(.refused(.sessionEnded)))) {
      $0.flash = Flash(.error, AccountError.sessionEnded.message)
    }
  }

  @Test func theLinksPageAsksForAPressAndThePressVerifies() async {
    let store = makeStore(signedIn: false) { $0.verifyAddress = { [token, address] given in
      #expect(given == token)
      return address
    } }
    await store.send(.verificationPageRequested(token: token)) {
      $0.destination = .verifyAddress(token: token)
      $0.progress.recordVisit(on: Day(noon, in: .tokyo), at: noon)
    }
    await store.send(.addressVerification(.confirmTapped(token: token))) { $0.destination = .login }
    await store.receive(.addressVerification(.confirmed(.success(address))))
    await store.receive(.addressVerification(.delegate(.verified(address)))) {
      $0.flash = Flash(.success, "メールアドレスを確認しました。ログインしてご利用ください。")
    }

    // Signed in to that account: its page says so at once.
    let own = makeStore { $0.verifyAddress = { [address] _ in address } }
    await own.send(.addressVerification(.confirmTapped(token: token))) { $0.destination = .account }
    await own.receive(.addressVerification(.confirmed(.success(address)))) { $0.addressStatus?.verifiedAt = noon }
    await own.receive(.addressVerification(.delegate(.verified(address)))) {
      $0.flash = Flash(.success, "メールアドレスを確認しました。ポイントを交換できるようになりました。")
    }
  }

  @Test func aUsedOrExpiredLinkOrAMalformedOneVerifiesNothing() async {
    let store = makeStore(signedIn: false) { $0.verifyAddress = { _ in throw AccountError.invalidLink } }
    await store.send(.addressVerification(.confirmTapped(token: token))) { $0.destination = .login }
    await store.receive(.addressVerification(.confirmed(.failure(.invalidLink))))
    await store.receive(.addressVerification(.delegate(.refused(.invalidLink)))) {
      $0.flash = Flash(.error, AccountError.invalidLink.message)
    }
    await store.send(.verificationPageRequested(token: "abc")) { $0.destination = .notFound }
    await store.send(.verificationPageRequested(token: Secret(String(repeating: "zz", count: 32))))  // still nowhere
  }

  @Test func anUnverifiedAccountCannotExchange() async {
    let store = makeStore()
    await store.send(.exchange(.optionSelected(ExchangeOption.all[0].id))) { $0.destination = .exchange }
    await store.receive(.exchange(.delegate(.verificationRequired))) {
      $0.flash = Flash(.error, "ポイント交換の前に、登録したメールアドレスの確認をお願いします。確認メールはこのページから再送できます。")
      $0.destination = .account
    }
    await store.send(.exchange(.exchangeButtonTapped(ExchangeOption.all[0].id, ledgerCount: 1, password: "correct horse battery"))) {
      $0.destination = .exchange
    }
    await store.receive(.exchange(.delegate(.verificationRequired))) { $0.destination = .account }
  }
}
