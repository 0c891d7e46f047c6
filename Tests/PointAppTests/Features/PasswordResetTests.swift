import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

/// A forgotten password: asked for with an address (the same answer whether it has an account),
/// a link by mail valid an hour, a new password from it.
struct PasswordResetTests {
  let address = EmailAddress("hanako@example.jp")!
  let token = Secret(String(repeating: "cd", count: 32))
  var expires: Date { noon.addingTimeInterval(PasswordReset.linkLifetime) }
  let requested = Flash(
    .success,
    "入力されたメールアドレスが登録されていれば、パスワード再設定のメールを送りました。メールのリンクは1時間有効です。届かないときは、迷惑メールのフォルダもご確認ください。"
  )

  func makeStore(signedIn: Bool = false, _ accounts: (inout AccountClient) -> Void = { _ in }) -> TestStoreOf<AppFeature> {
    var state = AppFeature.State()
    if signedIn { state.account = address }
    return appStore(state, accounts)
  }

  @Test func aKnownAddressGetsALinkAndAnUnknownOneTheSamePage() async {
    let known = makeStore { $0.issueReset = { [token, expires] email, until in
      #expect(email.value == "hanako@example.jp" && until == expires)
      return token
    } }
    await known.send(.passwordReset(.requestSubmitted(email: " Hanako@Example.jp "))) { $0.destination = .passwordForgot }
    await known.receive(.passwordReset(.linkIssued(address, requestedAt: noon, expires: expires, .success(token)))) {
      $0.outbox = [MailRequest(to: address, .passwordReset(token: token, requestedAt: noon, expires: expires))]
    }
    await known.receive(.passwordReset(.delegate(.requested))) { $0.flash = requested }

    // No account (or a link sent a moment ago): nothing to send, and the same page says the same.
    let unknown = makeStore { $0.issueReset = { _, _ in nil } }
    await unknown.send(.passwordReset(.requestSubmitted(email: "hanako@example.jp"))) { $0.destination = .passwordForgot }
    await unknown.receive(.passwordReset(.linkIssued(address, requestedAt: noon, expires: expires, .success(nil))))
    await unknown.receive(.passwordReset(.delegate(.requested))) { $0.flash = requested }
  }

  @Test func aClientAskingTooOftenIsToldToWaitAndAMalformedAddressWhy() async {
    let store = makeStore { $0.issueReset = { _, _ in throw AccountError.throttled } }
    await store.send(.passwordReset(.requestSubmitted(email: "hanako@example.jp"))) { $0.destination = .passwordForgot }
    await store.receive(.passwordReset(.linkIssued(address, requestedAt: noon, expires: expires, .failure(.throttled))))
    await store.receive(.passwordReset(.delegate(.refused(.throttled)))) { $0.destination = .tooManyAttempts }

    let malformed = makeStore()  // the client is never asked
    await malformed.send(.passwordReset(.requestSubmitted(email: "hanako@"))) { $0.destination = .passwordForgot }
    await malformed.receive(.passwordReset(.delegate(.refused(.invalidEmail)))) {
      $0.flash = Flash(.error, AccountError.invalidEmail.message)
    }
  }

  @Test func theLinksPageTakesANewPasswordAndSendsToTheLogin() async {
    let store = makeStore(signedIn: true) { $0.resetPassword = { [token, address] given, password in
      #expect(given == token && password == "a brand new passphrase")
      return address
    } }
    await store.send(.passwordResetPageRequested(token: token)) {
      $0.destination = .passwordReset(token: token)
      $0.progress.recordVisit(on: Day(noon, in: .tokyo), at: noon)
    }
    await store.send(.passwordReset(.resetSubmitted(token: token, password: "a brand new passphrase")))
    await store.receive(.passwordReset(.resetAnswered(.success(address))))
    await store.receive(.passwordReset(.delegate(.reset(address)))) {
      $0.identityChange = .signedOut  // its sessions have ended, this one too
      $0.flash = Flash(.success, "パスワードを再設定しました。新しいパスワードでログインしてください。")
      $0.destination = .login
    }
  }

  @Test func aWeakPasswordOrAUsedLinkChangesNothing() async {
    let weak = makeStore()  // the client is never asked
    await weak.send(.passwordReset(.resetSubmitted(token: token, password: "12345678"))) { $0.destination = .passwordReset(token: token) }
    await weak.receive(.passwordReset(.delegate(.refused(.password(.common))))) {
      $0.flash = Flash(.error, PasswordProblem.common.message)
    }
    let used = makeStore { $0.resetPassword = { _, _ in throw AccountError.invalidResetLink } }
    await used.send(.passwordReset(.resetSubmitted(token: token, password: "a brand new passphrase"))) {
      $0.destination = .passwordReset(token: token)
    }
    await used.receive(.passwordReset(.resetAnswered(.failure(.invalidResetLink))))
    await used.receive(.passwordReset(.delegate(.refused(.invalidResetLink)))) {
      $0.flash = Flash(.error, AccountError.invalidResetLink.message)
      $0.destination = .passwordForgot
    }
    await used.send(.passwordResetPageRequested(token: "short")) { $0.destination = .notFound }
  }

  @Test func linksGoToAnAddressAtMostOnceAMinuteAndThreeTimesAnHour() {
    #expect(LinkLimit.allows(after: [], at: noon))
    #expect(LinkLimit.allows(after: [noon - 3000, noon - 1200], at: noon))
    #expect(!LinkLimit.allows(after: [noon - 3000, noon - 1200, noon - 120], at: noon), "a fourth within the hour")
    #expect(LinkLimit.allows(after: [noon - 3700, noon - 1200, noon - 120], at: noon), "the first is past the hour")
    #expect(!LinkLimit.allows(after: [noon - 59], at: noon), "within the minute")
    #expect(LinkLimit.allows(after: [noon - 60], at: noon))
  }
}
