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
    layout(state, body: ["csrf": csrf, "email": state.account?.value ?? ""])
  }
}
