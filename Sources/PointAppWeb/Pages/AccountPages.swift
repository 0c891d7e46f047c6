import PointApp

extension Pages {
  /// The registration or login form; a refused one shows the address typed (never the password).
  static func signIn(_ state: AppFeature.State, _ kind: SignInForm.Kind, csrf: String) -> [String: Any] {
    let isRegister = kind == .register
    return layout(state, body: [
      "csrf": csrf, "isRegister": isRegister,
      "title": isRegister ? "新規登録" : "ログイン",
      "action": isRegister ? "/register" : "/login",
      "email": state.enteredEmail ?? "",
      "passwordAutocomplete": isRegister ? "new-password" : "current-password",
      "signedIn": state.account?.value ?? false,
    ])
  }

  /// The signed-in account: its address, logging out here or everywhere.
  static func account(_ state: AppFeature.State, csrf: String) -> [String: Any] {
    var body: [String: Any] = ["csrf": csrf, "email": state.account?.value ?? ""]
    if let verified = state.addressStatus?.verifiedAt {
      body["verifiedAt"] = date(verified)
    } else {
      body["unverified"] = ["lastSent": state.addressStatus?.linksSent.last.map(date) ?? "まだ送っていません"]
    }
    return layout(state, body: body)
  }

  /// A verification link's page: the button that uses it.
  static func verifyAddress(_ state: AppFeature.State, token: String, csrf: String) -> [String: Any] {
    layout(state, body: ["csrf": csrf, "token": token])
  }
}
