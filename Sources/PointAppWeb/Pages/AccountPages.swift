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

  /// The mail the member chooses to hear: each list with its box ticked when it is on.
  static func notificationSettings(_ state: AppFeature.State, csrf: String) -> [String: Any] {
    let notices = state.progress.notices
    return layout(state, body: [
      "csrf": csrf,
      "lists": NoticeList.allCases.map { list in
        ["name": list.rawValue, "title": list.title, "checked": notices.receives(list), "hint": list.hint]
      },
    ])
  }

  /// 退会: the points lost, an exchange still being fulfilled, the data download, the password form.
  static func withdraw(_ state: AppFeature.State, csrf: String) -> [String: Any] {
    let progress = state.progress
    var body: [String: Any] = ["csrf": csrf, "balance": "\(progress.ledger.balance)", "yen": progress.ledger.balance.yen, "email": state.account?.value ?? ""]
    if progress.exchanges.contains(where: \.isPending) { body["pending"] = true }
    return layout(state, body: body)
  }

  /// A verification link's page: the button that uses it.
  static func verifyAddress(_ state: AppFeature.State, token: String, csrf: String) -> [String: Any] {
    layout(state, body: ["csrf": csrf, "token": token])
  }
}

extension NoticeList {
  /// What a list's messages say, under its box.
  var hint: String {
    switch self {
    case .invitations: "あなたが回答できるアンケートが公開されたときにお知らせします。"
    case .expiry: "ポイントが失効する30日前にお知らせします（月ごとに1回）。"
    }
  }
}
