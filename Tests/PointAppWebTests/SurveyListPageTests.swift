import Foundation
import Hummingbird
import PointApp
@testable import PointAppWeb
import Testing

/// The list page is rendered once for every member shown the same cards, with their own address
/// and balance left as holes (`PageRenderer.surveysPage`): what each member sees must be the page
/// the template makes for them alone.
struct SurveyListPageTests {
  static let noon = Date(timeIntervalSince1970: 1_790_000_000)

  static func survey(_ id: String, titled title: String) -> Survey {
    Survey(
      id: SurveyID(id), title: title, description: "ふだんの暮らしについて", category: .food,
      questions: [SurveyQuestion(id: QuestionID("why"), text: "理由は？", kind: .freeText(required: false, maxLength: 100))],
      reward: 20, estimatedMinutes: 1, publishedAt: noon, expiresAt: nil
    )
  }

  static let catalog = [survey("drinks", titled: "飲み物の調査"), survey("snacks", titled: "おやつの調査")]

  /// A member's list of `surveys`, signed in to `account`, having answered `answered`.
  static func member(_ account: String?, answered: [Survey] = [], surveys: [Survey] = catalog) -> AppFeature.State {
    var state = AppFeature.State()
    state.account = account.flatMap(EmailAddress.init)
    state.surveyListPage = SurveyList.Page(surveys: surveys)
    for survey in answered {
      state.progress.recordAnswer(to: survey, with: [], id: TransactionID(UUID()), at: noon, on: Day(noon, in: .tokyo))
    }
    return state
  }

  static func renderer() async throws -> PageRenderer {
    try await PageRenderer(directory: repositoryRoot.appendingPathComponent("Templates"))
  }

  /// The page as the list's renderer writes it.
  static func page(_ renderer: PageRenderer, _ state: AppFeature.State) -> String {
    String(buffer: renderer.surveysPage(state))
  }

  /// The page as the template makes it, nothing kept.
  static func whole(_ state: AppFeature.State) async throws -> String {
    let renderer = try await renderer()
    return renderer.render("surveys", Pages.surveys(state, fragments: renderer))
  }

  @Test func eachMemberSeesTheirOwnAddressAndBalanceOnAKeptList() async throws {
    let renderer = try await Self.renderer()
    let hanako = Self.member("hanako@example.jp")
    let taro = Self.member("taro+list@example.jp")
    let guest = Self.member(nil)
    let (wholeHanako, wholeTaro, wholeGuest) = (try await Self.whole(hanako), try await Self.whole(taro), try await Self.whole(guest))
    let first = Self.page(renderer, hanako)
    #expect(first == wholeHanako)
    #expect(first.contains("hanako@example.jp") && first.contains("飲み物の調査"))
    // Taro is shown the same cards: his page is the kept one, filled in with his own.
    let second = Self.page(renderer, taro)
    #expect(second == wholeTaro)
    #expect(second.contains("taro+list@example.jp") && !second.contains("hanako"))
    #expect(Self.page(renderer, guest) == wholeGuest)
    #expect(Self.page(renderer, hanako) == first)
  }

  @Test func anAnsweredSurveyAndItsPointsShowOnTheMembersList() async throws {
    let renderer = try await Self.renderer()
    _ = Self.page(renderer, Self.member("hanako@example.jp"))
    let answered = Self.member("hanako@example.jp", answered: [Self.catalog[0]])
    let whole = try await Self.whole(answered)
    let page = Self.page(renderer, answered)
    #expect(page == whole)
    #expect(page.contains("<span>保有</span>20pt</a>"))
    #expect(page != Self.page(renderer, Self.member("hanako@example.jp")))
  }

  @Test func aSurveyEditedInTheCatalogShowsItsNewTitle() async throws {
    let renderer = try await Self.renderer()
    _ = Self.page(renderer, Self.member("hanako@example.jp"))
    let edited = [Self.survey("drinks", titled: "飲み物の調査（改訂）"), Self.catalog[1]]
    let whole = try await Self.whole(Self.member("hanako@example.jp", surveys: edited))
    let page = Self.page(renderer, Self.member("hanako@example.jp", surveys: edited))
    #expect(page.contains("飲み物の調査（改訂）") && page == whole)
  }

  @Test func aMessageIsShownOnTheMembersPage() async throws {
    let renderer = try await Self.renderer()
    _ = Self.page(renderer, Self.member("hanako@example.jp"))
    var state = Self.member("hanako@example.jp")
    state.flash = Flash(.success, "プロフィールを保存しました")
    let whole = try await Self.whole(state)
    let page = Self.page(renderer, state)
    #expect(page.contains("プロフィールを保存しました") && page == whole)
    #expect(!Self.page(renderer, Self.member("hanako@example.jp")).contains("プロフィールを保存しました"))
  }

  /// The holes are marked with Unicode noncharacters: one in a survey's own text stays text.
  @Test func aMarkInASurveysTextIsNotTakenForAHole() async throws {
    let renderer = try await Self.renderer()
    let (accountMark, balanceMark) = (Character(Unicode.Scalar(0xFDD0 as UInt16)!), Character(Unicode.Scalar(0xFDD1 as UInt16)!))
    let title = "飲み物\(accountMark)の調査\(balanceMark)"
    let marked = [Self.survey("drinks", titled: title)]
    for account in ["hanako@example.jp", "taro@example.jp"] {
      let state = Self.member(account, surveys: marked)
      let whole = try await Self.whole(state)
      let page = Self.page(renderer, state)
      #expect(page == whole)
      #expect(page.contains(title) && page.components(separatedBy: account).count == 3)
    }
  }

  /// A name added to the list page or its layout is one the kept page would show every member as
  /// the first had it: the key (`PageRenderer.ListKey`) or a hole must take it in first.
  @Test func everyNameOnTheListPageIsOneTheKeptPageAccountsFor() async throws {
    let renderer = try await Self.renderer()
    var state = Self.member("hanako@example.jp", answered: [Self.catalog[0]])
    state.surveyListPage.closedSurveys = [Self.survey("tea", titled: "お茶の調査")]
    state.surveyListPage.surveysNeedProfile = true
    state.flash = Flash(.success, "保存しました")
    let names = Set(Pages.surveys(state, fragments: renderer).keys)
    #expect(names.isSuperset(of: ["filters", "list", "closedList", "account", "balance", "flash"]))
    #expect(names.isSubset(of: PageRenderer.listNames))
  }

  /// What changes a list for everyone (places taken, a survey closed, the notices) gives a new
  /// page, the template's for that list.
  @Test func aListWhosePlacesClosedSurveysOrNoticesChangedIsRenderedAnew() async throws {
    let renderer = try await Self.renderer()
    let limited = Survey(
      id: SurveyID("drinks"), title: "飲み物の調査", description: "ふだんの暮らしについて", category: .food,
      questions: Self.catalog[0].questions, reward: 20, estimatedMinutes: 1, publishedAt: Self.noon, expiresAt: nil,
      quota: Quota(target: 100)
    )
    var state = Self.member("hanako@example.jp", surveys: [limited.counting(taken: 10), Self.catalog[1]])
    _ = Self.page(renderer, state)
    var changes: [(String, (inout AppFeature.State) -> Void)] = [
      ("あと3件", { $0.surveyListPage.surveys[0] = limited.counting(taken: 97) }),
      ("受付を終了したアンケート", { $0.surveyListPage.closedSurveys = [limited.counting(taken: 100)] }),
      ("プロフィールを登録", { $0.surveyListPage.surveysNeedProfile = true }),
    ]
    changes.append(("アンケートを読み込めませんでした", { $0.surveyListPage = SurveyList.Page(loadFailed: true) }))
    for (shown, change) in changes {
      change(&state)
      let whole = try await Self.whole(state)
      let page = Self.page(renderer, state)
      #expect(page == whole && page.contains(shown), "\(shown)")
    }
  }
}
