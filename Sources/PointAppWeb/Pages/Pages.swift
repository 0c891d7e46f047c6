import Foundation
import Hummingbird
import PointApp

/// The contexts of every page: pure functions of the user's root state (and, where a page names
/// surveys, the catalog's titles). Same state, same context, same bytes.
public enum Pages {
  /// What the layout needs from the state: the balance and the flash message. (Each page's
  /// template names its title and its menu tab; a page with forms puts the session's CSRF token in
  /// its body, as `csrf`.)
  static func layout(_ state: AppFeature.State, body: [String: Any]) -> [String: Any] {
    var context = body
    // Shown as `{{.}}` inside its own section: a name looked up inside a section on a string
    // would be looked for on that string first, by reflection.
    context["balance"] = "\(state.progress.ledger.balance)"
    if let account = state.account { context["account"] = account.value }
    if let flash = state.flash {
      context["flash"] = ["message": flash.message, "isError": flash.kind == .error]
    }
    return context
  }

  public static func error(_ status: HTTPResponse.Status) -> [String: Any] {
    let (title, message): (String, String) =
      switch status.code {
      case 400: ("リクエストが正しくありません", "送信された内容を読み取れませんでした。ページを開き直してもう一度お試しください。")
      case 403: ("この操作は受け付けられません", "ページの有効期限が切れたか、別のサイトから送信されました。ページを開き直してからもう一度お試しください。")
      case 404: ("ページが見つかりません", "お探しのページやアンケートは存在しないか、受付を終了しました。")
      case 405: ("この方法では開けません", "このページはリンクやボタンから開いてください。")
      case 413: ("送信内容が大きすぎます", "回答の文字数を減らしてもう一度お試しください。")
      case 415: ("送信形式が正しくありません", "フォームから送信してください。")
      case 429: ("しばらくお待ちください", AccountError.throttled.message)
      case 503: ("ただいま混み合っています", "しばらく待ってからもう一度お試しください。")
      default: ("エラーが発生しました", "申し訳ありません。時間をおいてもう一度お試しください。入力内容やポイントは保存されていません。")
      }
    return ["status": status.code, "title": title, "message": message, "back": "/surveys", "backLabel": "アンケート一覧へ戻る"]
  }

  // MARK: Formatting

  // Written out from the day's civil date, as Japanese formats them (`Date.FormatStyle` with
  // ja_JP gives the same text through ICU and its locale data; `PageFormatTests` compares them).

  /// `2026/11/27 9:05`, in Tokyo.
  static func date(_ date: Date) -> String {
    let (day, second) = Day.split(date, in: .tokyo)
    let (year, month, dayOfMonth) = day.civil
    let (hour, minute) = (second / 3_600, second % 3_600 / 60)
    return "\(year)/\(month)/\(dayOfMonth) \(hour):\(minute < 10 ? "0" : "")\(minute)"
  }

  /// `2026年11月27日`, in Tokyo.
  static func day(_ date: Date) -> String {
    let (year, month, day) = Day(date, in: .tokyo).civil
    return "\(year)年\(month)月\(day)日"
  }

  static func signed(_ transaction: PointTransaction) -> String {
    (transaction.reason.isCredit ? "+" : "−") + "\(transaction.amount)"
  }

  static func transaction(_ transaction: PointTransaction, titles: [SurveyID: String]) -> [String: Any] {
    let title =
      switch transaction.reason {
      case let .surveyReward(id): "アンケート回答「\(titles[id] ?? id.rawValue)」"
      case let .missionBonus(kind): "ミッション達成ボーナス（\(kind.title)）"
      case let .exchange(id): "ポイント交換（\(ExchangeOption(id: id)?.title ?? id.rawValue)）"
      case .profileBonus: "プロフィール登録ボーナス"
      case let .screeningConsolation(id): "事前調査のお礼「\(titles[id] ?? id.rawValue)」"
      case let .expiry(month): "有効期限切れによる失効（\(month.label)獲得分）"
      case let .rankBonus(id): "ランクボーナス「\(titles[id] ?? id.rawValue)」"
      case let .exchangeHold(number, id): "ポイント交換の申請（\(ExchangeOption(id: id)?.title ?? id.rawValue)・申請番号\(number)）"
      case let .exchangeRefund(number, id): "交換できなかったポイントの返還（\(ExchangeOption(id: id)?.title ?? id.rawValue)・申請番号\(number)）"
      case let .adjustmentCredit(reason), let .adjustmentDebit(reason): "運営による調整：\(reason)"
      }
    return [
      "title": title, "date": date(transaction.date), "amount": signed(transaction),
      "isCredit": transaction.reason.isCredit,
    ]
  }

  static func percent(_ progress: Int, of target: Int) -> Int {
    target > 0 ? min(100, progress * 100 / target) : 100
  }
}
