import Foundation
import PointApp

/// Where the features' messages (`MailRequest`) become mail: each is written in Japanese from its
/// template (`Templates/mail-*.mustache`, ending with the sender's details) and queued, in the
/// holding of the change that asked for it.
struct MailOutbox: Sendable {
  let queue: MailQueue
  /// Where the account a message is about is found: its user is the message's.
  let accounts: AccountRecords
  let renderer: PageRenderer
  let settings: MailSettings
  /// A user's unsubscribe token (`Sessions.unsubscribeToken(for:)`).
  let unsubscribeToken: @Sendable (UserID) -> String

  /// Queues `requests`, asked for in `user`'s update: each under the user of the account it is
  /// about (the desk shows whose mail went undelivered), `user`'s when there is none (gone).
  func queue(_ requests: [MailRequest], for user: UserID?, at now: Date) async throws {
    var messages: [QueuedMail] = []
    for request in requests {
      let owner = request.kind.list == nil ? try await accounts.read(AccountID(email: request.account.value))?.record.user : nil
      messages.append(compose(request, for: owner ?? user, at: now))
    }
    try await queue.add(messages)
  }

  func compose(_ request: MailRequest, for user: UserID?, at now: Date) -> QueuedMail {
    var context: [String: Any] = [
      "site": settings.siteURL, "senderName": settings.senderName, "postalAddress": settings.postalAddress, "contact": settings.contact,
    ]
    let (kind, subject): (String, String)
    var unsubscribe: String?
    if let list = request.kind.list, let user {
      unsubscribe = settings.siteURL + "/unsubscribe?token=" + unsubscribeToken(user) + "&list=" + list.rawValue
      context["unsubscribe"] = unsubscribe
      context["listTitle"] = list.title
    }
    switch request.kind {
    case let .addressVerification(token, expires):
      (kind, subject) = ("verification", "【PointApp】メールアドレスの確認")
      context["link"] = settings.siteURL + "/account/verify?token=" + token.value
      context["expires"] = Pages.date(expires)
    case let .passwordReset(token, requestedAt, expires):
      (kind, subject) = ("password-reset", "【PointApp】パスワードの再設定")
      context["link"] = settings.siteURL + "/password/reset?token=" + token.value
      context["requestedAt"] = Pages.date(requestedAt)
      context["expires"] = Pages.date(expires)
    case let .invitation(survey), let .reminder(survey):
      (kind, subject) = if case .reminder = request.kind {
        ("reminder", "【PointApp】締切間近「\(survey.title)」\(survey.reward)")
      } else {
        ("invitation", "【PointApp】新着アンケート「\(survey.title)」\(survey.reward)")
      }
      context["link"] = settings.siteURL + "/surveys/" + survey.survey.rawValue
      (context["title"], context["reward"], context["minutes"]) = (survey.title, "\(survey.reward)", survey.minutes)
      context["expires"] = survey.expiresAt.map(Pages.date)
    case let .addressChange(token, expires):
      (kind, subject) = ("address-change", "【PointApp】メールアドレス変更の確認")
      context["link"] = settings.siteURL + "/account/email/confirm?token=" + token.value
      context["expires"] = Pages.date(expires)
    case let .addressChanged(to):
      (kind, subject) = ("address-changed", "【PointApp】メールアドレスが変更されました")
      context["to"] = to.masked
      context["at"] = Pages.date(now)
    case let .withdrawn(lost):
      (kind, subject) = ("withdrawn", "【PointApp】退会の手続きが完了しました")
      context["lost"] = "\(lost)"
      context["at"] = Pages.date(now)
    case let .expiryWarning(lots):
      let total = lots.reduce(PointAmount.zero) { $0.adding($1.amount) }
      (kind, subject) = ("expiry-warning", "【PointApp】\(total)が\(lots.map(\.month.expiryLabel).min() ?? "")に失効します")
      context["link"] = settings.siteURL + "/exchange"
      context["lots"] = lots.map { ["amount": "\($0.amount)", "month": $0.month.label, "expires": $0.month.expiryLabel] }
    }
    let body = renderer.render("mail-" + kind, context)
    return QueuedMail(
      id: hex(randomBytes(16)), user: user, kind: kind, to: request.to.value, subject: subject, body: body, queued: now, unsubscribe: unsubscribe,
      list: unsubscribe == nil ? nil : request.kind.list
    )
  }
}
