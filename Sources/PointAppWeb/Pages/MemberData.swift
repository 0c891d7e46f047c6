import Foundation
import PointApp

/// Everything the site holds about a member, as one JSON file (`GET /account/data.json`), as
/// the APPI (個人情報保護法 arts. 33–35) entitles them to ask for: the account, the profile, the
/// notification settings, every point movement, every answer, every exchange with its code masked.
struct MemberData: Encodable {
  struct AccountPart: Encodable {
    let email: String
    let registeredAt: Date
    let verifiedAt: Date?
  }

  struct ProfilePart: Encodable {
    let birthYear: Int
    let gender: String
    let prefecture: String
    let occupation: String
  }

  struct Movement: Encodable {
    let date: Date
    /// Signed: a credit adds, a debit takes.
    let points: Int
    let description: String
  }

  struct Answer: Encodable {
    let survey: String
    let title: String?
    let answeredAt: Date
    /// `completed`, `screenedOut`, `invalid` or `closed`.
    let outcome: String
    let points: Int
    let answers: [SurveyAnswer]
  }

  struct Exchange: Encodable {
    let number: Int
    let option: String
    let points: Int
    let requestedAt: Date
    let state: String
    /// All but its last four characters hidden: the code in full is on its own page.
    let code: String?
  }

  let exportedAt: Date
  let account: AccountPart
  let profile: ProfilePart?
  let notifications: [String: Bool]
  let balance: Int
  let movements: [Movement]
  let answers: [Answer]
  let exchanges: [Exchange]

  /// The member `account`'s data, read from their state and its archive.
  static func of(_ account: Account, in users: UserStates, catalog: [Survey], at now: Date) async throws -> MemberData {
    let state = try await users.read(account.user).map(SavedState.state(from:)) ?? AppFeature.State()
    let progress = state.progress
    let history = try await UserFiles.history(of: account.user, in: users)
    let titles = Dictionary(catalog.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
    var requests: [ExchangeRequest] = []
    let archive = UserFiles.ledgerArchive(of: account.user, in: users)
    for start in stride(from: 0, to: progress.archivedExchangeCount, by: UserProgress.exchangeSegmentSize) {
      requests += try await archive.exchanges(start).requests
    }
    requests += progress.exchanges
    return MemberData(
      exportedAt: now,
      account: AccountPart(email: account.email, registeredAt: account.created, verifiedAt: account.verifiedAt),
      profile: progress.profile.map {
        ProfilePart(birthYear: $0.birthYear, gender: $0.gender.title, prefecture: $0.prefecture.title, occupation: $0.occupation.title)
      },
      notifications: Dictionary(uniqueKeysWithValues: NoticeList.allCases.map { ($0.rawValue, progress.notices.receives($0)) }),
      balance: progress.ledger.balance.value,
      movements: history.movements.map { movement in
        Movement(
          date: movement.date, points: movement.reason.isCredit ? movement.amount.value : -movement.amount.value,
          description: Pages.transaction(movement, titles: titles)["title"] as? String ?? ""
        )
      },
      answers: history.answers.sorted { ($0.value.date, $0.key.rawValue) < ($1.value.date, $1.key.rawValue) }.map { survey, answered in
        Answer(
          survey: survey.rawValue, title: titles[survey], answeredAt: answered.date, outcome: answered.outcome?.rawValue ?? "completed",
          points: answered.reward.value, answers: answered.answers
        )
      },
      exchanges: requests.map { request in
        let (state, code): (String, String?) =
          switch request.status {
          case .pending: ("申請中", nil)
          case let .fulfilled(code, _): ("交換完了", code.masked)
          case .failed: ("失敗（ポイント返還済み）", nil)
          }
        return Exchange(
          number: request.number, option: ExchangeOption(id: request.option)?.title ?? request.option.rawValue, points: request.points.value,
          requestedAt: request.requestedAt, state: state, code: code
        )
      }
    )
  }

  var json: Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return (try? encoder.encode(self)) ?? Data()
  }
}
