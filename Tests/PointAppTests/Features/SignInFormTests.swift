import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

struct SignInFormTests {
  let address = EmailAddress("Hanako@Example.jp")!

  func makeStore(_ kind: SignInForm.Kind, signedIn: EmailAddress? = nil, _ accounts: (inout AccountClient) -> Void = { _ in }) -> TestStoreOf<SignInForm> {
    TestStore(initialState: SignInForm.State(kind, signedIn: signedIn)) {
      SignInForm()
    } withDependencies: {
      accounts(&$0.accounts)
    }
  }

  @Test func registeringAValidAddressAndPasswordSignsIn() async {
    let store = makeStore(.register) { $0.register = { email, password in
      #expect(password == "correct horse battery")
      return SignIn(email: email)
    } }
    await store.send(.submitted(.register, email: " Hanako@Example.jp ", password: "correct horse battery")) {
      $0.email = "hanako@example.jp"
    }
    await store.receive(\.answered.success)
    await store.receive(.delegate(.signedIn(SignIn(email: address))))
  }

  @Test func aMalformedAddressOrAWeakPasswordIsRefusedBeforeAnythingIsAsked() async {
    let store = makeStore(.register)  // an unimplemented client fails the test if called
    await store.send(.submitted(.register, email: "hanako@", password: "correct horse battery")) { $0.email = "hanako@" }
    await store.receive(.delegate(.refused(.invalidEmail)))
    await store.send(.submitted(.register, email: "hanako@example.jp", password: "short")) { $0.email = "hanako@example.jp" }
    await store.receive(.delegate(.refused(.password(.tooShort))))
    await store.send(.submitted(.register, email: "hanako@example.jp", password: "password123"))
    await store.receive(.delegate(.refused(.password(.common))))
  }

  @Test func anAddressTakenAlreadyIsRefused() async {
    let store = makeStore(.register) { $0.register = { _, _ in throw AccountError.emailTaken } }
    await store.send(.submitted(.register, email: "hanako@example.jp", password: "correct horse battery")) {
      $0.email = "hanako@example.jp"
    }
    await store.receive(.answered(.failure(.emailTaken)))
    await store.receive(.delegate(.refused(.emailTaken)))
  }

  @Test func loggingInReportsWhatMovedFromTheGuest() async {
    let report = MergeReport(pointsMoved: 60, pointsDeducted: 0, surveysMoved: 1, duplicateSurveys: [], duplicateMissions: [])
    let store = makeStore(.logIn) { $0.logIn = { email, _ in SignIn(email: email, merged: report) } }
    await store.send(.submitted(.logIn, email: "hanako@example.jp", password: "anything at all")) {
      $0.email = "hanako@example.jp"
    }
    await store.receive(\.answered.success)
    await store.receive(.delegate(.signedIn(SignIn(email: address, merged: report))))
  }

  @Test func aWrongPasswordAnEmptyOneAndAMalformedAddressSayTheSame() async {
    let store = makeStore(.logIn) { $0.logIn = { _, _ in throw AccountError.wrongCredentials } }
    await store.send(.submitted(.logIn, email: "hanako@example.jp", password: "wrong password")) { $0.email = "hanako@example.jp" }
    await store.receive(.answered(.failure(.wrongCredentials)))
    await store.receive(.delegate(.refused(.wrongCredentials)))
    await store.send(.submitted(.logIn, email: "hanako@example.jp", password: ""))
    await store.receive(.delegate(.refused(.wrongCredentials)))
    await store.send(.submitted(.logIn, email: "not an address", password: "wrong password")) { $0.email = "not an address" }
    await store.receive(.delegate(.refused(.wrongCredentials)))
  }

  @Test func someoneSignedInCannotSignInAgain() async {
    let store = makeStore(.register, signedIn: address)
    await store.send(.submitted(.register, email: "other@example.jp", password: "correct horse battery")) { $0.email = "other@example.jp" }
    await store.receive(.delegate(.refused(.alreadySignedIn)))
  }
}

struct SecretTests {
  /// Actions are described in reports that reach the logs (an effect past its deadline).
  @Test func aPasswordInAnActionIsNeverDescribed() {
    let actions: [AppFeature.Action] = [
      .signInForm(.submitted(.logIn, email: "hanako@example.jp", password: "hunter2 hunter2")),
      .passwordChange(.submitted(current: "hunter2 hunter2", new: "hunter2 hunter2")),
      .exchange(.exchangeButtonTapped(ExchangeOption.all[0].id, ledgerCount: 1, password: "hunter2 hunter2")),
    ]
    for action in actions {
      #expect(!"\(action)".contains("hunter2"))
      #expect(!String(reflecting: action).contains("hunter2"))
    }
  }
}
