import CasePaths
import Composable
import Dependencies
import Foundation

/// The root feature: one user's whole app. Every change to a user's state goes through it, and it
/// decides where the user is (`destination`), which the web shell only maps to a response.
public struct AppFeature: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var progress = UserProgress()
    public var flash: Flash?
    /// Refused answers, kept until their survey is answered: its page shows them again.
    public var draft: SurveyDraft?
    /// The address typed in a refused sign-in form, shown in it again once (never the password).
    public var enteredEmail: String?
    /// The fields of a refused profile form, shown in it again until a profile is saved.
    public var profileDraft: ProfileDraft?
    /// The account the request's session is signed in to: set by the web layer, never saved.
    public var account: EmailAddress?
    /// When the session last had the account's password typed: set by the web layer, never saved.
    public var passwordConfirmedAt: Date?
    public var exchangeAsksPassword = false
    /// Who the browser is from now on, when a request changed it: the web layer gives the
    /// session a new id for it. Never saved.
    public var identityChange: IdentityChange?
    /// Where the user is after the request's actions: set by the reducers, never saved.
    public var destination: Destination?
    // What the pages show: built per request from the catalog and the clock, never saved.
    public var surveyListPage = SurveyList.Page()
    public var surveyDetailPage: SurveyDetail.Page?
    public var signInFormKind = SignInForm.Kind.logIn
    /// The address in the sign-in form: the one typed in a refused form, shown again.
    public var signInFormEmail = ""
    public var historyPage = PointHistory.Page()
    public var pointsPage = PointDashboard.Page()
    public var missionsDay: Day?
    public var profileErrors: [ProfileField: ProfileError] = [:]
    public var exchangeConfirmation: AlertState<Exchange.Action>?
    public var exchangePage = Exchange.Page()
    public var exchangeHistoryPage = Exchange.History()
    /// The catalog's titles, for pages that name surveys by id (the ledger); empty when the
    /// catalog cannot be read, and those pages show ids.
    public var surveyTitles: [SurveyID: String] = [:]
    /// Why the support desk's action was refused: set by the reducer, never saved.
    public var supportRefusal: SupportError?
    /// The signed-in account's address (verified, links sent): set by the web layer, never saved.
    public var addressStatus: AddressStatus?
    /// Messages the request's actions ask to be sent: the web layer queues them with the save
    /// (which a non-empty outbox makes happen); never saved.
    public var outbox: [MailRequest] = []
    /// The support desk's moves of pending exchange requests: the web layer writes them to the
    /// exchange queue with the save (which they make happen); never saved.
    public var exchangeNudges: [ExchangeNudge] = []

    public init() {}
  }

  /// A change of who the browser is.
  public enum IdentityChange: Equatable, Sendable {
    /// Signed in to `email`'s account (registered now, or logged in).
    case signedIn(EmailAddress)
    /// Logged out: a new guest from now on.
    case signedOut
    /// Logged out of every device: every session of the account ends, this one too.
    case signedOutEverywhere
  }

  /// Where a user is: a page, a refused form, or nowhere that exists. Each case carries what its
  /// page needs, so that a page cannot be shown without it.
  public enum Destination: Equatable, Sendable {
    case surveyList
    /// A survey's page, with its question form.
    case survey(Survey)
    /// A survey not meant for this user (by their profile, or for want of one).
    case surveyIneligible(Survey, Eligibility)
    /// A survey was answered and paid.
    case answerComplete(Survey, UserProgress.AnsweredSurvey)
    /// A survey's screening did not qualify: it ended there, with its consolation.
    case screenedOut(Survey, UserProgress.AnsweredSurvey)
    /// A survey's answers were still careless after a review: recorded, unpaid.
    case answerInvalid(Survey, UserProgress.AnsweredSurvey)
    /// 受付終了: a survey that takes no more answers, to a user who had not answered it.
    case surveyClosed(Survey, Survey.Closure)
    /// A survey answered before was answered again, and paid nothing.
    case alreadyAnswered(Survey, UserProgress.AnsweredSurvey)
    case points
    case history
    case missions
    case exchange
    /// Every exchange request, with its state.
    case exchangeHistory
    /// One exchange request: its state, and its code once fulfilled (to its owner only: the
    /// request is looked up in the user's own state).
    case exchangeRequest(ExchangeRequest)
    /// The profile form.
    case profile
    case register
    case login
    /// The signed-in account's page.
    case account
    /// The mail the member chooses to hear.
    case notificationSettings
    /// An address change link's page: a button that confirms it.
    case confirmAddressChange(token: Secret)
    /// 退会: what leaving loses, and the password form.
    case withdraw
    /// The account has ended.
    case withdrawn
    /// A verification link's page: a button that confirms the address (a link that changes
    /// something by being fetched would be used up by mail scanners).
    case verifyAddress(token: Secret)
    /// The form that asks for a password reset link.
    case passwordForgot
    /// A reset link's page: the form for the new password.
    case passwordReset(token: Secret)
    /// The question asked before points are exchanged for `option`.
    case exchangeConfirmation(ExchangeOption, AlertState<Exchange.Action>)
    /// No such page, survey or exchange.
    case notFound
    /// Something the page needs (the catalog, the history archive) cannot be read now.
    case unavailable
    /// Too many failed logins: refused for a while.
    case tooManyAttempts
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case surveyList(SurveyList.Action)
    /// A survey's page was asked for.
    case surveyOpened(SurveyID)
    /// The page that shows what answering a survey paid was asked for.
    case surveyCompletionOpened(SurveyID)
    /// A survey's form was sent with these answers, from the page of the survey's `version`
    /// (`nil`: a form that does not say; its answers are checked against the version now), and of
    /// its questions' page `page` when it has several (`nil`: every question's).
    case answersSubmitted(SurveyID, AnswerDraft, version: Int? = nil, page: Int? = nil)
    /// 前のページへ: a survey's page `page` was left for the one before, with these answers kept.
    case answersPageBack(SurveyID, AnswerDraft, version: Int? = nil, page: Int)
    /// A survey's screening form was sent with these answers (and `version`, as above).
    case screeningSubmitted(SurveyID, AnswerDraft, version: Int? = nil)
    /// The page that shows a screening that did not qualify was asked for.
    case screeningResultOpened(SurveyID)
    case surveyDetail(SurveyDetail.Action)
    case surveyTitlesLoaded([SurveyID: String])
    case dashboard(PointDashboard.Action)
    case history(PointHistory.Action)
    case missions(Missions.Action)
    case exchange(Exchange.Action)
    case profile(ProfileForm.Action)
    case signInForm(SignInForm.Action)
    case passwordChange(PasswordChange.Action)
    case addressVerification(AddressVerification.Action)
    /// A verification link was opened.
    case verificationPageRequested(token: Secret)
    case passwordReset(PasswordReset.Action)
    /// "パスワードを忘れた方" was followed.
    case passwordForgotPageRequested
    /// A reset link was opened.
    case passwordResetPageRequested(token: Secret)
    /// The account's page was asked for.
    case accountPageRequested
    case notifications(Notifications.Action)
    /// The notification settings' page was asked for.
    case notificationSettingsPageRequested
    case withdrawal(Withdrawal.Action)
    case addressChange(AddressChangeFeature.Action)
    /// An address change link was opened.
    case addressChangePageRequested(token: Secret)
    case withdrawPageRequested
    /// The page after leaving.
    case withdrawnPageRequested
    /// The logout button was pressed.
    case logoutButtonTapped
    /// "Log out of every device" was pressed.
    case logoutEverywhereButtonTapped
    /// The flash message has been shown and is not shown again.
    case flashShown
    /// The support desk changes this user (`SupportDesk`, through the web layer's user update).
    case support(SupportAction)
    /// Whether an answer the desk approves got its place in the survey's quota.
    case supportPlaceClaimed(Survey, Result<Bool, QuotaError>)

    /// Whether the action makes its page from the catalog, which its sender may then read
    /// beforehand and hand in with the state (`SurveyList.Page.catalog`): the list is made in the
    /// action's own step rather than by an effect and a second step.
    public var readsCatalog: Bool {
      if case .surveyList(.pageRequested) = self { return true }
      return false
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.calendar) var calendar
  @Dependency(\.surveyClient) var surveyClient
  @Dependency(\.uuid) var uuid
  @Dependency(\.quotas) var quotas

  public init() {}

  public var body: some ReducerOf<Self> {
    // Before anything else, points that have expired are written off: no feature sees them in
    // the balance, and each month's expiry is written once, at the first action after it.
    Reduce { state, _ in
      state.progress.expire(at: now) { TransactionID(uuid()) }
      return .none
    }
    // The children run first: the root decides where their outcome leads.
    Scope(state: \.surveyList, action: \.surveyList) { SurveyList() }
    Scope(state: \.dashboard, action: \.dashboard) { PointDashboard() }
    Scope(state: \.history, action: \.history) { PointHistory() }
    Scope(state: \.missions, action: \.missions) { Missions() }
    Scope(state: \.exchange, action: \.exchange) { Exchange() }
    Scope(state: \.profileForm, action: \.profile) { ProfileForm() }
    Scope(state: \.signInForm, action: \.signInForm) { SignInForm() }
    Scope(state: \.passwordChange, action: \.passwordChange) { PasswordChange() }
    Scope(state: \.addressVerification, action: \.addressVerification) { AddressVerification() }
    Scope(state: \.passwordResetForm, action: \.passwordReset) { PasswordReset() }
    Scope(state: \.notifications, action: \.notifications) { Notifications() }
    Scope(state: \.withdrawal, action: \.withdrawal) { Withdrawal() }
    Scope(state: \.addressChange, action: \.addressChange) { AddressChangeFeature() }
    Reduce { state, action in
      switch action {
      case .surveyList(.pageRequested):
        arrive(at: .surveyList, &state)
        return .none
      case let .surveyOpened(id):
        return open(SurveyDetail.Page(surveyID: id, intent: .answer), &state)
      case let .surveyCompletionOpened(id):
        state.missionsDay = Day(now, in: calendar)
        return open(SurveyDetail.Page(surveyID: id, intent: .seeCompletion), &state)
      case let .answersSubmitted(id, draft, version, page):
        return open(SurveyDetail.Page(surveyID: id, intent: .submit(draft, version: version, page: page)), &state)
      case let .answersPageBack(id, draft, version, page):
        return open(SurveyDetail.Page(surveyID: id, intent: .back(draft, version: version, page: page)), &state)
      case let .screeningSubmitted(id, draft, version):
        return open(SurveyDetail.Page(surveyID: id, intent: .screen(draft, version: version)), &state)
      case let .screeningResultOpened(id):
        return open(SurveyDetail.Page(surveyID: id, intent: .seeScreeningResult), &state)
      case .surveyDetail(.surveyLoaded), .surveyDetail(.submitButtonTapped), .surveyDetail(.placeClaimed):
        // The survey feature has run: where its outcome leads.
        guard let detail = state.surveyDetail else { return .none }
        let page = detail.page
        guard !page.loadFailed else {
          state.destination = .unavailable
          return .none
        }
        guard let survey = page.survey else {
          state.destination = .notFound
          return .none
        }
        if let eligibility = page.ineligible {
          // Its own URL shows why; a form sent to it leads there, paying nothing.
          if case .answer = page.intent { arrive(at: .surveyIneligible(survey, eligibility), &state) } else { state.destination = .survey(survey) }
          return .none
        }
        if let closure = page.closed, detail.answered == nil || detail.answered?.outcome == .closed {
          // Closed to them: its own URL says so (with the consolation of a screening they had
          // passed); a form sent to it leads there, taking nothing.
          if case .answer = page.intent { arrive(at: .surveyClosed(survey, closure), &state) } else { state.destination = .survey(survey) }
          return .none
        }
        let ended = detail.answered.flatMap { Self.ending(of: survey, $0) }
        let screenedOut = detail.answered.flatMap { $0.outcome == .screenedOut ? $0 : nil }
        switch page.intent {
        case .answer:
          // A survey that ended at its screening, or invalid, shows that at its own URL.
          if let ended { state.destination = ended } else { arrive(at: .survey(survey), &state) }
        case .seeCompletion:
          if let ended, case .answerInvalid = ended {
            arrive(at: ended, &state)
          } else if let ended {
            state.destination = ended
          } else if let answered = detail.answered {
            arrive(at: .answerComplete(survey, answered), &state)
          } else {
            state.destination = .survey(survey)  // not answered yet: its page instead
          }
        case .seeScreeningResult:
          if let screenedOut { arrive(at: .screenedOut(survey, screenedOut), &state) } else { state.destination = .survey(survey) }
        case .submit:
          if page.screeningFirst {
            state.flash = Flash(.error, "事前調査の質問から回答してください。")
            state.destination = .survey(survey)
          } else if !page.errors.isEmpty || page.pageMoved {
            // Refused: back to its page, which shows the kept draft and why it was refused; or
            // one page of several sent: on to the next.
            state.destination = .survey(survey)
          }
        case .back:
          state.destination = .survey(survey)
        case .screen:
          // Sent again once decided, it leads to what was decided; refused, back to the form.
          if let ended {
            state.destination = ended
          } else if let answered = detail.answered {
            state.destination = .alreadyAnswered(survey, answered)
          } else {
            state.destination = .survey(survey)
          }
        }
        return .none
      case let .surveyDetail(.delegate(.qualified(survey))):
        state.flash = Flash(.success, "事前調査へのご回答ありがとうございます。対象の方です。続けて本調査にお答えください。")
        state.destination = .survey(survey)
        return .none
      case let .surveyDetail(.delegate(.screenedOut(_, consolation))):
        state.flash = Flash(.success, "事前調査にご協力いただきありがとうございました。お礼に\(consolation)をお送りしました。")
        return .none
      case let .surveyDetail(.delegate(.answered(survey, _))) where state.progress.answer(to: survey.id)?.isCompleted == false:
        // It had ended without completion (screened out, invalid): no answer is taken, nothing paid.
        state.destination = state.progress.answer(to: survey.id).flatMap { Self.ending(of: survey, $0) }
        return .none
      case let .surveyDetail(.delegate(.reviewRequested(survey))):
        state.destination = .survey(survey)  // its page asks for a review, the answers kept
        return .none
      case let .surveyDetail(.delegate(.updated(survey))):
        state.flash = Flash(.error, "このアンケートは内容が更新されました。設問をご確認のうえ、もう一度送信してください。")
        state.destination = .survey(survey)  // its page, as it is now, with the answers kept
        return .none
      case let .surveyDetail(.delegate(.answerInvalid(survey))):
        state.destination = state.progress.answer(to: survey.id).flatMap { Self.ending(of: survey, $0) }
        return .none
      case let .surveyDetail(.delegate(.answered(survey, paid))):
        let bonus = state.progress.ledger.recent.last { $0.reason == .rankBonus(survey.id) }?.amount
        state.flash = paid
          ? Flash(.success, "「\(survey.title)」に回答しました。\(survey.reward)を獲得しました！" + (bonus.map { "ランクボーナス\($0)も加算しました。" } ?? ""))
          : Flash(.error, "このアンケートは回答済みです。ポイントは1回だけもらえます。")
        if let answered = state.progress.answer(to: survey.id) {
          state.destination = paid ? .answerComplete(survey, answered) : .alreadyAnswered(survey, answered)
        }
        return .none
      case let .surveyTitlesLoaded(titles):
        state.surveyTitles = titles
        return .none
      case .dashboard(.pageRequested):
        arrive(at: .points, &state)
        return loadTitles()
      case .history(.pageRequested):
        arrive(at: .history, &state)
        return loadTitles()
      case .history(.archiveLoaded):
        if state.historyPage.archiveFailed { state.destination = .unavailable }
        return .none
      case .missions(.pageRequested):
        arrive(at: .missions, &state)
        return .none
      case .missions(.claimButtonTapped):
        state.destination = .missions
        return .none
      case let .missions(.delegate(.claimed(kind))):
        state.flash = Flash(.success, "ミッション達成！ボーナス\(kind.bonus)を受け取りました。")
        return .none
      case .exchange(.pageRequested):
        arrive(at: .exchange, &state)
        return .none
      case let .exchange(.optionSelected(id)):
        if let option = ExchangeOption(id: id), let confirmation = state.exchangeConfirmation {
          arrive(at: .exchangeConfirmation(option, confirmation), &state)
        } else {
          // Refused (the provider cannot deliver it): the options, saying why. A guest, an
          // unverified address or an unknown option are sent elsewhere by the delegate after.
          state.destination = .exchange
        }
        return .none
      case .exchange(.historyRequested):
        arrive(at: .exchangeHistory, &state)
        return .none
      case .exchange(.historyArchiveLoaded):
        if state.exchangeHistoryPage.archiveFailed { state.destination = .unavailable }
        return .none
      case let .exchange(.requestOpened(number)):
        if let request = state.progress.exchangeRequest(number) {
          arrive(at: .exchangeRequest(request), &state)
        } else if !state.progress.isArchivedExchange(number) {
          state.destination = .notFound
        }
        return .none
      case let .exchange(.archivedRequestLoaded(number, .success(segment))):
        if let request = segment.requests.first(where: { $0.number == number }) {
          arrive(at: .exchangeRequest(request), &state)
        } else {
          state.destination = .unavailable
        }
        return .none
      case .exchange(.archivedRequestLoaded(_, .failure)):
        state.destination = .unavailable
        return .none
      case .exchange(.exchangeButtonTapped):
        state.destination = .exchange
        return .none
      case let .exchange(.delegate(.requested(request))):
        state.flash = Flash(.success, "交換を申請しました（申請番号\(request.number)）。")
        state.destination = .exchangeRequest(request)
        return .none
      case let .exchange(.delegate(.fulfilled(request))):
        state.flash = Flash(.success, "交換が完了しました（申請番号\(request.number)）。")
        state.destination = .exchangeRequest(request)
        return .none
      case let .exchange(.delegate(.failed(request))):
        state.flash = Flash(.error, "申請番号\(request.number)の交換はできませんでした。\(request.points)をお返ししました。")
        state.destination = .exchangeRequest(request)
        return .none
      case let .exchange(.delegate(.delayed(request))):
        // Still pending: its page says so, and the code arrives there once issued.
        state.destination = .exchangeRequest(request)
        return .none
      case .exchange(.delegate(.exchangeRefused(.unknownOption))):
        state.destination = .notFound
        return .none
      case let .missions(.delegate(.claimRefused(error))), let .exchange(.delegate(.exchangeRefused(error))):
        state.flash = Flash(.error, error.message)
        return .none
      case .exchange(.delegate(.verificationRequired)):
        state.flash = Flash(.error, "ポイント交換の前に、登録したメールアドレスの確認をお願いします。確認メールはこのページから再送できます。")
        state.destination = .account
        return .none
      case .exchange(.delegate(.signInRequired)):
        state.flash = Flash(.error, "ポイント交換にはログインが必要です。ログインするか、新規登録してください。")
        state.destination = .login
        return .none
      case let .exchange(.delegate(.passwordRefused(error))):
        state.flash = Flash(.error, error.message)
        return .none
      case .profile(.pageRequested):
        arrive(at: .profile, &state)
        return .none
      case .profile(.submitted):
        state.destination = .profile  // saved or refused, its page shows which
        return .none
      case let .profile(.delegate(.saved(bonus))):
        state.flash = Flash(.success, bonus.map { "プロフィールを登録しました。ボーナス\($0)を獲得しました！" } ?? "プロフィールを更新しました。")
        return .none
      case .profile(.delegate(.refused)):
        return .none  // its page says why, at each field
      case let .signInForm(.pageRequested(kind)):
        arrive(at: kind == .register ? .register : .login, &state)
        return .none
      case let .signInForm(.submitted(kind, _, _)):
        state.destination = kind == .register ? .register : .login  // refused, unless signed in
        return .none
      case .signInForm(.delegate(.refused(.throttled))):
        state.destination = .tooManyAttempts
        return .none
      case let .signInForm(.delegate(.refused(error))):
        state.flash = Flash(.error, error.message)
        state.enteredEmail = state.signInFormEmail
        return .none
      case let .signInForm(.delegate(.signedIn(signIn))):
        state.identityChange = .signedIn(signIn.email)
        state.enteredEmail = nil
        state.destination = .points
        // A login's message goes with the account's data (`Flash.loggedIn`): this request's user
        // is the guest left behind.
        guard state.signInFormKind == .register else { return .none }
        state.flash = Flash(
          .success,
          "登録しました。\(signIn.email.value) に確認メールを送りました。メールのリンクを開くと、ポイントを交換できるようになります。"
        )
        return .send(.addressVerification(.registered(signIn.email)))
      case let .verificationPageRequested(token):
        // A link cut short, or not one of ours.
        guard Self.isLinkToken(token) else {
          state.destination = .notFound
          return .none
        }
        arrive(at: .verifyAddress(token: token), &state)
        return .none
      case .passwordForgotPageRequested:
        arrive(at: .passwordForgot, &state)
        return .none
      case let .passwordResetPageRequested(token):
        guard Self.isLinkToken(token) else {
          state.destination = .notFound
          return .none
        }
        arrive(at: .passwordReset(token: token), &state)
        return .none
      case .passwordReset(.requestSubmitted):
        state.destination = .passwordForgot
        return .none
      case let .passwordReset(.resetSubmitted(token, _)):
        state.destination = .passwordReset(token: token)  // refused: back to its form, saying why
        return .none
      case .passwordReset(.delegate(.requested)):
        state.flash = Flash(
          .success,
          "入力されたメールアドレスが登録されていれば、パスワード再設定のメールを送りました。メールのリンクは1時間有効です。届かないときは、迷惑メールのフォルダもご確認ください。"
        )
        return .none
      case let .passwordReset(.delegate(.reset(email))):
        // Every session of the account has ended: this browser, signed in to it or not, logs in again.
        if state.account == email { state.identityChange = .signedOut }
        state.flash = Flash(.success, "パスワードを再設定しました。新しいパスワードでログインしてください。")
        state.destination = .login
        return .none
      case .passwordReset(.delegate(.refused(.invalidResetLink))):
        state.flash = Flash(.error, AccountError.invalidResetLink.message)
        state.destination = .passwordForgot  // a new link is the way on
        return .none
      case .passwordReset(.delegate(.refused(.throttled))):
        state.destination = .tooManyAttempts
        return .none
      case let .passwordReset(.delegate(.refused(error))):
        state.flash = Flash(.error, error.message)
        return .none
      case .addressVerification(.resendTapped), .addressVerification(.confirmTapped):
        state.destination = state.account == nil ? .login : .account
        return .none
      case let .addressVerification(.delegate(.linkSent(email, resent))):
        if resent { state.flash = Flash(.success, "\(email.value) に確認メールを送りました。24時間以内にリンクを開いてください。") }
        return .none
      case let .addressVerification(.delegate(.verified(email))):
        state.flash = state.account == email
          ? Flash(.success, "メールアドレスを確認しました。ポイントを交換できるようになりました。")
          : Flash(.success, "メールアドレスを確認しました。ログインしてご利用ください。")
        return .none
      case let .addressVerification(.delegate(.refused(error))):
        state.flash = Flash(.error, error.message)
        return .none
      case .accountPageRequested:
        // Nobody signed in has no account page: the login form instead.
        if state.account == nil {
          state.destination = .login
        } else {
          arrive(at: .account, &state)
        }
        return .none
      case .notificationSettingsPageRequested:
        if state.account == nil {
          state.destination = .login
        } else {
          arrive(at: .notificationSettings, &state)
        }
        return .none
      case let .addressChangePageRequested(token):
        guard Self.isLinkToken(token) else {
          state.destination = .notFound
          return .none
        }
        arrive(at: .confirmAddressChange(token: token), &state)
        return .none
      case .addressChange(.submitted), .addressChange(.confirmTapped):
        state.destination = state.account == nil ? .login : .account
        return .none
      case let .addressChange(.delegate(.linkSent(address))):
        state.flash = Flash(.success, "\(address.value) に確認メールを送りました。24時間以内にメールのリンクを開くと、変更が完了します。")
        return .none
      case let .addressChange(.delegate(.changed(move))):
        // Every session of the account ended with the move; this browser, signed in to it, goes on.
        if state.account == move.from { state.identityChange = .signedIn(move.to) }
        state.flash = state.account == move.from
          ? Flash(.success, "メールアドレスを \(move.to.value) に変更しました。")
          : Flash(.success, "メールアドレスを \(move.to.value) に変更しました。新しいアドレスでログインしてください。")
        return .none
      case let .addressChange(.delegate(.refused(error))):
        state.flash = Flash(.error, error.message)
        return .none
      case .withdrawPageRequested:
        if state.account == nil {
          state.destination = .login
        } else {
          arrive(at: .withdraw, &state)
        }
        return .none
      case .withdrawnPageRequested:
        state.destination = .withdrawn
        return .none
      case .withdrawal(.submitted):
        state.destination = state.account == nil ? .login : .withdraw  // refused: back to its form
        return .none
      case .withdrawal(.delegate(.withdrawn)):
        state.profileDraft = nil
        state.identityChange = .signedOut
        state.destination = .withdrawn
        return .none
      case let .withdrawal(.delegate(.refused(error))):
        state.flash = Flash(.error, error.message)
        return .none
      case .notifications(.settingsSubmitted):
        state.destination = state.account == nil ? .login : .notificationSettings
        return .none
      case .notifications(.delegate(.saved)):
        if state.account != nil { state.flash = Flash(.success, "メールの配信設定を保存しました。") }
        return .none
      case .passwordChange(.submitted):
        state.destination = .account
        return .none
      case let .passwordChange(.delegate(.changed(email))):
        // The account's other sessions have ended; this one goes on under a new id.
        state.identityChange = .signedIn(email)
        state.flash = Flash(.success, "パスワードを変更しました。ほかの端末ではログアウトしました。")
        return .none
      case let .passwordChange(.delegate(.refused(error))):
        state.flash = Flash(.error, error.message)
        return .none
      case .logoutButtonTapped, .logoutEverywhereButtonTapped:
        if state.account != nil {
          state.identityChange = action == .logoutButtonTapped ? .signedOut : .signedOutEverywhere
        }
        state.destination = .surveyList
        return .none
      case .flashShown:
        state.flash = nil
        state.enteredEmail = nil
        return .none
      case let .support(action):
        return support(action, &state)
      case let .supportPlaceClaimed(survey, .success(true)):
        do throws(SupportError) {
          try state.progress.approveInvalidAnswer(to: survey, id: TransactionID(uuid()), at: now, bonusID: { TransactionID(uuid()) })
        } catch {
          state.supportRefusal = error
        }
        return .none
      case .supportPlaceClaimed(_, .success(false)):
        state.supportRefusal = .quotaFull  // nothing paid, nothing taken
        return .none
      case .supportPlaceClaimed(_, .failure):
        state.supportRefusal = .quotaUnavailable
        return .none
      case .surveyList, .surveyDetail, .dashboard, .history, .missions, .exchange, .profile, .signInForm, .passwordChange,
        .addressVerification, .passwordReset, .notifications, .withdrawal, .addressChange:
        return .none
      }
    }
    .ifLet(\.surveyDetail, action: \.surveyDetail) { SurveyDetail() }
  }

  /// The support desk's action, refused (`supportRefusal`) changing nothing when it cannot be done.
  private func support(_ action: SupportAction, _ state: inout State) -> Effect<Action> {
    state.destination = .account  // never shown: the desk answers from its own pages
    do throws(SupportError) {
      switch action {
      case let .adjust(points, reason, id):
        try state.progress.adjustPoints(by: points, reason: reason, id: id, at: now)
      case let .approveAnswer(survey, cellName):
        try state.progress.checkApprovable(survey.id)
        let cell = survey.cells?.cells.first { $0.name == cellName }
        // A survey of cells takes no answer outside them (none recorded, or a cell gone since).
        if survey.cells != nil, cell == nil { throw .quotaFull }
        if survey.quota != nil || cell != nil {
          // A place first, as for any complete: the quota never goes over, not for the desk either.
          let places = survey.quota?.places
          return .run { [quotas] send in
            do {
              await send(.supportPlaceClaimed(survey, .success(try await quotas.claim(survey.id, places, cell))))
            } catch {
              await send(.supportPlaceClaimed(survey, .failure(QuotaError(error))))
            }
          }
        }
        try state.progress.approveInvalidAnswer(to: survey, id: TransactionID(uuid()), at: now, bonusID: { TransactionID(uuid()) })
      case let .retryExchange(number), let .refundExchange(number):
        guard state.progress.exchangeRequest(number)?.isPending == true else { throw .notPending }
        if case .retryExchange = action { return .send(.exchange(.retryRequested(number))) }
        return .send(.exchange(.cancellationRequested(number)))
      }
    } catch {
      state.supportRefusal = error
    }
    return .none
  }

  /// Where a survey that ended without completing leads; `nil` for a completed one.
  static func ending(of survey: Survey, _ answered: UserProgress.AnsweredSurvey) -> Destination? {
    switch answered.outcome {
    case .screenedOut?: .screenedOut(survey, answered)
    case .invalid?: .answerInvalid(survey, answered)
    case .closed?: .surveyClosed(survey, survey.closure(at: answered.date) == .deadlinePassed ? .deadlinePassed : .full)
    case nil: nil
    }
  }

  /// Whether `token` has the shape of a link's token (64 hex digits): anything else is a link
  /// cut short, or not one of ours.
  static func isLinkToken(_ token: Secret) -> Bool {
    token.value.utf8.count == 64 && token.value.allSatisfy(\.isHexDigit)
  }

  /// The user is on a page: it counts as the day's visit (the streak and today's visit mission).
  private func arrive(at destination: Destination, _ state: inout State) {
    let now = now  // one reading: the visit's time and its day agree, even at midnight
    state.progress.recordVisit(on: Day(now, in: calendar), at: now)
    state.destination = destination
  }

  /// Loads a survey for what the user asked of it; where they go depends on what it turns out to be.
  private func open(_ page: SurveyDetail.Page, _ state: inout State) -> Effect<Action> {
    state.surveyDetailPage = page
    state.destination = nil
    return SurveyDetail.load(page.surveyID).map(Action.surveyDetail)
  }

  private func loadTitles() -> Effect<Action> {
    .run { send in
      let surveys = (try? await surveyClient.fetchAll()) ?? []
      await send(.surveyTitlesLoaded(Dictionary(surveys.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })))
    }
  }
}

// Each child feature sees the user's progress together with its own page; what it changes in the
// progress is written back to the one copy the root keeps.
extension AppFeature.State {
  public var surveyList: SurveyList.State {
    get { SurveyList.State(progress: progress, page: surveyListPage) }
    set { (progress, surveyListPage) = (newValue.progress, newValue.page) }
  }

  public var surveyDetail: SurveyDetail.State? {
    get { surveyDetailPage.map { SurveyDetail.State(progress: progress, draft: draft, page: $0) } }
    set {
      if let newValue { (progress, draft) = (newValue.progress, newValue.draft) }
      surveyDetailPage = newValue?.page
    }
  }

  public var dashboard: PointDashboard.State {
    get { PointDashboard.State(progress: progress, page: pointsPage) }
    set { (progress, pointsPage) = (newValue.progress, newValue.page) }
  }

  public var history: PointHistory.State {
    get { PointHistory.State(progress: progress, page: historyPage) }
    set { (progress, historyPage) = (newValue.progress, newValue.page) }
  }

  public var missions: Missions.State {
    get { Missions.State(progress: progress, today: missionsDay) }
    set { (progress, missionsDay) = (newValue.progress, newValue.today) }
  }

  public var exchange: Exchange.State {
    get {
      var exchange = Exchange.State(
        progress: progress, confirmation: exchangeConfirmation, account: account, passwordConfirmedAt: passwordConfirmedAt,
        page: exchangePage, history: exchangeHistoryPage
      )
      exchange.asksPassword = exchangeAsksPassword
      exchange.addressVerified = addressStatus?.isVerified == true
      exchange.nudges = exchangeNudges
      return exchange
    }
    set {
      (progress, exchangeConfirmation, passwordConfirmedAt) = (newValue.progress, newValue.confirmation, newValue.passwordConfirmedAt)
      exchangeAsksPassword = newValue.asksPassword
      exchangeNudges = newValue.nudges
      exchangePage = newValue.page
      exchangeHistoryPage = newValue.history
    }
  }

  public var profileForm: ProfileForm.State {
    get { ProfileForm.State(progress: progress, draft: profileDraft, errors: profileErrors) }
    set { (progress, profileDraft, profileErrors) = (newValue.progress, newValue.draft, newValue.errors) }
  }

  public var passwordChange: PasswordChange.State {
    get { PasswordChange.State(signedIn: account) }
    set {}
  }

  public var addressVerification: AddressVerification.State {
    get { AddressVerification.State(signedIn: account, status: addressStatus, outbox: outbox) }
    set { (addressStatus, outbox) = (newValue.status, newValue.outbox) }
  }

  public var addressChange: AddressChangeFeature.State {
    get { AddressChangeFeature.State(signedIn: account, outbox: outbox) }
    set { outbox = newValue.outbox }
  }

  public var withdrawal: Withdrawal.State {
    get { Withdrawal.State(signedIn: account, progress: progress, enteredEmail: enteredEmail, outbox: outbox) }
    set { (progress, enteredEmail, outbox) = (newValue.progress, newValue.enteredEmail, newValue.outbox) }
  }

  public var notifications: Notifications.State {
    get { Notifications.State(signedIn: account, progress: progress, outbox: outbox) }
    set { (progress, outbox) = (newValue.progress, newValue.outbox) }
  }

  public var passwordResetForm: PasswordReset.State {
    get { PasswordReset.State(outbox: outbox) }
    set { outbox = newValue.outbox }
  }

  public var signInForm: SignInForm.State {
    get { SignInForm.State(signInFormKind, signedIn: account, email: signInFormEmail) }
    set { (signInFormKind, signInFormEmail) = (newValue.kind, newValue.email) }
  }
}
