import CasePaths
import Composable
import Dependencies
import Foundation

/// The root feature of the people who run PointApp (`/admin`), beside `AppFeature`: signing in,
/// the surveys and their states, closing one early, the audit log. It decides where the operator
/// is (`destination`); the web shell maps that to a response, as it does for users.
public struct OperatorFeature: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    /// The operator signed in: set by the web layer from the session; `nil` signed out.
    public var signedIn: String?
    /// Their role, which decides what of the console they reach.
    public var role: OperatorRole?
    /// Where their second factor stands in this session: every part of the console waits for it.
    public var secondFactor: SecondFactor?
    /// The authenticator's secret the enrolment page shows.
    public var enrolment: Enrolment?
    /// What the session holds to show once (recovery codes, a new operator's password).
    public var revealed: Revealed?
    /// Where a second factor asked again leads back to.
    public var next: String?
    /// `/admin/operators`.
    public var team = OperatorTeam.State()
    /// Why the last sign-in was refused (shown on the sign-in page once).
    public var refusal: AccountError?
    /// Who the browser is from now on, when a request changed it: the web layer gives the
    /// session a new id for it.
    public var identityChange: IdentityChange?
    public var destination: Destination?
    // What the pages show: built per request, never saved.
    public var surveys: [Survey] = []
    public var now: Date?
    public var auditPage = AuditPage(entries: [], next: nil)
    /// The cursor the audit page shows from (`nil`: the newest).
    public var auditCursor: String?
    /// Surveys being edited: the survey list shows those never published as 下書き.
    public var drafts: [EditorDraft] = []
    /// The survey open in the editor or its preview.
    public var editor: SurveyEditor.State?
    /// A form sent to the editor, waiting for the survey it edits to load.
    public var submission: Submission?
    /// What the survey list is narrowed to.
    public var surveyListFilter = SurveyListFilter()
    /// The preview shows the survey's own questions rather than its screening.
    public var previewsMainQuestions = false
    /// Where the preview of a survey in pages was walked to: a page sent with its answers, or left
    /// for the one before.
    public var previewWalk: PreviewWalk?
    /// The survey page the preview shows, as the survey feature makes it for a respondent.
    public var preview: SurveyDetail.State?
    /// The survey whose dashboard or export is asked for, and its counts.
    public var survey: Survey?
    public var counts = ResponseCounts()
    /// The survey's invitations by mail; `nil` when it sent none (not published from the console).
    public var invitations: InvitationProgress?
    /// The support desk's pages.
    public var desk = SupportDesk.State()

    public init(
      signedIn: String? = nil, role: OperatorRole? = nil, secondFactor: SecondFactor? = nil, revealed: Revealed? = nil,
      refusal: AccountError? = nil
    ) {
      self.signedIn = signedIn
      desk = SupportDesk.State(operatorEmail: signedIn)
      self.role = role
      self.secondFactor = secondFactor
      self.revealed = revealed
      self.refusal = refusal
    }
  }

  /// An operator's second factor in a session.
  public enum SecondFactor: Equatable, Sendable {
    /// Signed in with the password only: the code is asked next, or, with nothing enrolled, the
    /// authenticator is enrolled first.
    case pending(enrolled: Bool)
    /// Given at this time in this session.
    case given(at: Date)
  }

  /// What is shown once, kept with the session until its page has shown it.
  public enum Revealed: Codable, Equatable, Sendable {
    case recoveryCodes([Secret])
    case initialPassword(email: String, password: Secret)
  }

  /// How long a second factor stands for the parts of the console that ask it again
  /// (`ConsoleArea.asksSecondFactorAgain`: exports and operators).
  public static let reconfirmAfter: TimeInterval = 15 * 60

  /// What the surveys page lists: the catalog, and the drafts.
  public struct Board: Equatable, Sendable {
    public var surveys: [Survey]
    public var drafts: [EditorDraft]

    public init(surveys: [Survey], drafts: [EditorDraft] = []) {
      self.surveys = surveys
      self.drafts = drafts
    }
  }

  /// A survey and its responses counted.
  public struct Dashboard: Equatable, Sendable {
    public var survey: Survey
    public var counts: ResponseCounts
    public var invitations: InvitationProgress?

    public init(survey: Survey, counts: ResponseCounts, invitations: InvitationProgress? = nil) {
      self.survey = survey
      self.counts = counts
      self.invitations = invitations
    }
  }

  public struct Submission: Equatable, Sendable {
    /// `nil`: the draft as it was saved (the preview's publish button).
    public var form: SurveyForm?
    public var intent: SurveyEditor.Intent

    public init(form: SurveyForm?, intent: SurveyEditor.Intent) {
      self.form = form
      self.intent = intent
    }
  }

  public enum IdentityChange: Equatable, Sendable {
    case signedIn(String)
    case signedOut
  }

  public enum Destination: Equatable, Sendable {
    case login
    /// The second factor's code (after the password, or asked again).
    case secondFactor
    /// Enrolling an authenticator, at the first sign-in (or after a reset).
    case enrolment
    /// The recovery codes, shown once after enrolment.
    case recoveryCodes
    /// The second factor asked again before a part that needs it fresh: back to the request's
    /// own URL afterwards.
    case reconfirm
    /// Back where a second factor asked again was asked (a console path).
    case resume(String)
    /// A part of the console the role does not reach (403).
    case forbidden
    case operators(OperatorTeam.Outcome?)
    case surveys
    case audit
    case editor(SurveyID)
    case preview(SurveyID)
    case dashboard(SurveyID)
    /// The support desk's search page.
    case users
    /// A user at the support desk, with what the form before did.
    case user(String, SupportOutcome?)
    /// A survey's responses, sent as they are read (the web shell streams them); one not cut yet
    /// leads to its address with the cut.
    case export(SurveyID, ResponseExport)
    /// What a download of the survey's responses holds, before it is taken: the filters, the cut,
    /// the versions, the rows and each file's SHA-256 (the web shell makes the files to count
    /// them), with the links to the files and their manifests.
    case exportPage(SurveyID, ResponseExport)
    /// The manifest beside a download, as a file.
    case exportManifest(SurveyID, ResponseExport)
    case notFound
    case unavailable
    case tooManyAttempts

    /// The export a destination of one is about.
    public var export: ResponseExport? {
      switch self {
      case let .export(_, export), let .exportPage(_, export), let .exportManifest(_, export): export
      default: nil
      }
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    /// `/admin`: the console's first page.
    case homeRequested
    /// The sign-in page; `refused` after a sign-in that was (the page says why).
    case loginPageRequested(refused: Bool)
    case loginSubmitted(email: String, password: Secret)
    case loginFinished(Result<String, AccountError>)
    case surveysPageRequested(SurveyListFilter = SurveyListFilter())
    case surveysLoaded(Result<Board, OperatorError>)
    /// 新規作成: a draft of a new survey, opened in the editor.
    case newSurveyButtonTapped
    /// 複製: a draft of a new survey with this one's form.
    case duplicateButtonTapped(SurveyID)
    case draftCreated(Result<SurveyID, OperatorError>)
    /// The editor's page of a survey (its draft, or its published form).
    case editorRequested(SurveyID)
    /// The page users would get from the draft: its screening first (when it has one), or its
    /// own questions.
    case previewRequested(SurveyID, mainQuestions: Bool, walk: PreviewWalk? = nil)
    /// The editor's form, sent by one of its buttons; `nil`: the draft as saved, sent by a button
    /// of its preview.
    case editorSubmitted(SurveyID, SurveyForm?, SurveyEditor.Intent)
    case editorLoaded(Result<SurveyEditor.State, OperatorError>)
    case editor(SurveyEditor.Action)
    /// A survey's dashboard: its responses counted, fresh.
    case dashboardRequested(SurveyID)
    case dashboardLoaded(Result<Dashboard, OperatorError>)
    /// A survey's responses, as a file.
    case exportRequested(SurveyID, ResponseExport)
    case exportStarted(Result<Survey, OperatorError>, ResponseExport)
    /// The page of an export before it is downloaded (its filters; cut now when not yet), or its
    /// manifest as a file.
    case exportPageRequested(SurveyID, ResponseExport, manifest: Bool = false)
    case exportPageLoaded(Result<Survey, OperatorError>, ResponseExport, manifest: Bool)
    case closeSurveyButtonTapped(SurveyID)
    case surveyClosed(Result<Survey, OperatorError>)
    case auditPageRequested(cursor: String?)
    case auditLoaded(Result<AuditPage, OperatorError>)
    case logoutButtonTapped
    case desk(SupportDesk.Action)
    /// The code page: after the password, or asked again before `next`.
    case secondFactorPageRequested(next: String?, refused: Bool)
    case secondFactorSubmitted(code: Secret, next: String?)
    /// `nil`: taken; otherwise why not.
    case secondFactorFinished(AccountError?, next: String?)
    case enrolmentPageRequested(refused: Bool)
    case enrolmentLoaded(Result<Enrolment, OperatorError>)
    case enrolmentSubmitted(code: String)
    case enrolmentFinished(AccountError?)
    case recoveryCodesPageRequested
    /// 保存しました: on to the console.
    case recoveryCodesAcknowledged
    case team(OperatorTeam.Action)
  }

  @Dependency(\.date.now) var now
  @Dependency(\.uuid) var uuid
  @Dependency(\.surveyClient) var surveyClient
  @Dependency(\.operators) var operators

  public init() {}

  public var body: some ReducerOf<Self> {
    Admitted {
      Scope(state: \.desk, action: \.desk) { SupportDesk() }
      Scope(state: \.team, action: \.team) { OperatorTeam() }
      Reduce { state, action in
        switch action {
        case .homeRequested:
          return home(&state)

        case let .loginPageRequested(refused):
          guard state.signedIn == nil else { return home(&state) }
          if refused { state.refusal = .wrongCredentials }
          state.destination = .login
          return .none

        case let .secondFactorPageRequested(next, refused):
          if refused { state.refusal = .wrongCredentials }
          state.next = next.flatMap(Self.consolePath)
          switch state.secondFactor {
          case .pending(enrolled: false)?:
            state.destination = .enrolment
          case .given?:
            // Asked again only on the way somewhere; otherwise there is nothing to ask.
            guard state.next != nil else { return home(&state) }
            state.destination = .secondFactor
          case .pending(enrolled: true)?, nil:
            state.destination = .secondFactor
          }
          return .none

        case let .secondFactorSubmitted(code, next):
          state.refusal = nil
          let next = next.flatMap(Self.consolePath)
          return .asking({ try await operators.verifySecondFactor(code.value) }) { .secondFactorFinished($0.refusal, next: next) }

        case let .secondFactorFinished(nil, next):
          state.secondFactor = .given(at: now)
          if let next {
            state.destination = .resume(next)
            return .none
          }
          return home(&state)

        case let .secondFactorFinished(error?, next):
          state.refusal = error
          state.next = next
          state.destination = error == .throttled ? .tooManyAttempts : .secondFactor
          return .none

        case let .enrolmentPageRequested(refused):
          guard state.secondFactor == .pending(enrolled: false) else {
            state.destination = .secondFactor
            return .none
          }
          if refused { state.refusal = .wrongCredentials }
          return .run { send in
            do {
              await send(.enrolmentLoaded(.success(try await operators.startEnrolment())))
            } catch {
              await send(.enrolmentLoaded(.failure(error as? OperatorError ?? .unavailable)))
            }
          }

        case let .enrolmentLoaded(.success(enrolment)):
          state.enrolment = enrolment
          state.destination = .enrolment
          return .none

        case let .enrolmentLoaded(.failure(error)):
          state.destination = error == .notFound ? .notFound : .unavailable
          return .none

        case let .enrolmentSubmitted(code):
          guard state.secondFactor == .pending(enrolled: false) else {
            state.destination = .secondFactor
            return .none
          }
          state.refusal = nil
          return .asking({ try await operators.confirmEnrolment(code) }) { .enrolmentFinished($0.refusal) }

        case .enrolmentFinished(nil):
          state.secondFactor = .given(at: now)
          state.destination = .recoveryCodes
          return .none

        case let .enrolmentFinished(error?):
          state.refusal = error
          state.destination = error == .throttled ? .tooManyAttempts : .enrolment
          return .none

        case .recoveryCodesPageRequested:
          guard case .given = state.secondFactor else {
            state.destination = .secondFactor
            return .none
          }
          state.destination = .recoveryCodes
          return .none

        case .recoveryCodesAcknowledged:
          return home(&state)

        case let .loginSubmitted(email, password):
          state.refusal = nil
          return .asking({ try await operators.signIn(email, password) }, answer: Action.loginFinished)

        case let .loginFinished(.success(email)):
          // The password only: the second factor is next, under the new session.
          state.identityChange = .signedIn(email)
          state.destination = .secondFactor
          return .none

        case let .loginFinished(.failure(error)):
          state.refusal = error
          state.destination = error == .throttled ? .tooManyAttempts : .login
          return .none

        case let .surveysPageRequested(filter):
          state.surveyListFilter = filter
          return loadSurveys(&state)

        case let .surveysLoaded(.success(board)):
          state.surveys = SurveySort.newest.sorted(board.surveys)
          state.drafts = board.drafts.sorted { $0.savedAt > $1.savedAt }
          state.destination = .surveys
          return .none

        case .surveysLoaded(.failure):
          state.destination = .unavailable
          return .none

        case .newSurveyButtonTapped:
          var form = SurveyForm()
          form.publishAt = SurveyForm.formatted(now)
          form.deadline = SurveyForm.formatted(now.addingTimeInterval(14 * 86_400))
          form.addQuestion(.single)
          return create(EditorDraft(id: newSurveyID(), form: form, savedAt: now))

        case let .duplicateButtonTapped(id):
          let (draft, now) = (newSurveyID(), now)
          return .run { [surveyClient, operators] send in
            do {
              guard let original = try await surveyClient.fetch(id) else {
                return await send(.draftCreated(.failure(.notFound)))
              }
              var form = SurveyForm(original)
              form.title = String((form.title + "（コピー）").prefix(80))
              try await operators.saveDraft(EditorDraft(id: draft, form: form, savedAt: now))
              await send(.draftCreated(.success(draft)))
            } catch {
              await send(.draftCreated(.failure(error as? OperatorError ?? .unavailable)))
            }
          }

        case let .draftCreated(.success(id)):
          state.destination = .editor(id)
          return .none

        case let .draftCreated(.failure(error)), let .editor(.delegate(.failed(error))):
          state.destination = error == .notFound ? .notFound : .unavailable
          return .none

        case let .editorRequested(id):
          state.destination = .editor(id)
          return loadEditor(id)

        case let .previewRequested(id, mainQuestions, walk):
          state.destination = .preview(id)
          state.previewsMainQuestions = mainQuestions
          state.previewWalk = walk
          return loadEditor(id)

        case let .editorSubmitted(id, form, intent):
          state.destination = .editor(id)
          state.submission = Submission(form: form, intent: intent)
          return loadEditor(id)

        case let .editorLoaded(.success(editor)):
          state.editor = editor
          if let submission = state.submission {
            state.submission = nil
            return .send(.editor(.submitted(submission.form ?? editor.draft.form, submission.intent)))
          }
          // A draft with mistakes has no preview: its form shows them.
          if case .preview? = state.destination, case let .failure(errors) = editor.survey {
            state.editor?.errors = errors
            state.destination = .editor(editor.id)
          }
          if case .preview? = state.destination, case let .success(survey) = editor.survey {
            state.preview = Self.preview(survey, mainQuestions: state.previewsMainQuestions, walk: state.previewWalk, at: editor.draft.savedAt)
          }
          return .none

        case let .editorLoaded(.failure(error)):
          state.destination = error == .notFound ? .notFound : .unavailable
          return .none

        case let .editor(.delegate(delegate)):
          guard let id = state.editor?.id else { return .none }
          switch delegate {
          case .editing: state.destination = .editor(id)
          case .previewing: state.destination = .preview(id)
          case .published, .discarded: return loadSurveys(&state)
          case .failed: break
          }
          return .none

        case .editor:
          return .none

        case let .dashboardRequested(id):
          state.now = now
          return .run { [surveyClient, operators] send in
            do {
              guard let survey = try await surveyClient.fetch(id) else { return await send(.dashboardLoaded(.failure(.notFound))) }
              let (counts, invitations) = (try await operators.responseCounts(id), try await operators.invitations(id))
              await send(.dashboardLoaded(.success(Dashboard(survey: survey, counts: counts, invitations: invitations))))
            } catch {
              await send(.dashboardLoaded(.failure(error as? OperatorError ?? .unavailable)))
            }
          }

        case let .dashboardLoaded(.success(dashboard)):
          state.survey = dashboard.survey
          state.counts = dashboard.counts
          state.invitations = dashboard.invitations
          state.destination = .dashboard(dashboard.survey.id)
          return .none

        case let .dashboardLoaded(.failure(error)), let .exportStarted(.failure(error), _):
          state.destination = error == .notFound ? .notFound : .unavailable
          return .none

        case let .exportRequested(id, export) where export.cut == nil:
          // Cut now: its address names the cut, and gives the same file whenever it is taken.
          state.destination = .export(id, export.cut(at: now))
          return .none

        case let .exportPageRequested(id, export, manifest):
          let export = export.cut == nil ? export.cut(at: now) : export
          return .run { [surveyClient] send in
            do {
              guard let survey = try await surveyClient.fetch(id) else { return await send(.exportPageLoaded(.failure(.notFound), export, manifest: manifest)) }
              await send(.exportPageLoaded(.success(survey), export, manifest: manifest))
            } catch {
              await send(.exportPageLoaded(.failure(.unavailable), export, manifest: manifest))
            }
          }

        case let .exportPageLoaded(.success(survey), export, manifest):
          state.survey = survey
          state.destination = manifest ? .exportManifest(survey.id, export) : .exportPage(survey.id, export)
          return .none

        case let .exportPageLoaded(.failure(error), _, _):
          state.destination = error == .notFound ? .notFound : .unavailable
          return .none

        case let .exportRequested(id, export):
          // Who took which answers out is in the audit log before a byte is sent.
          return .run { [surveyClient, operators] send in
            do {
              guard let survey = try await surveyClient.fetch(id) else { return await send(.exportStarted(.failure(.notFound), export)) }
              try await operators.exportStarted(id, export)
              await send(.exportStarted(.success(survey), export))
            } catch {
              await send(.exportStarted(.failure(error as? OperatorError ?? .unavailable), export))
            }
          }

        case let .exportStarted(.success(survey), export):
          state.survey = survey
          state.destination = .export(survey.id, export)
          return .none

        case let .closeSurveyButtonTapped(id):
          return .run { send in
            do {
              await send(.surveyClosed(.success(try await operators.closeSurvey(id))))
            } catch {
              await send(.surveyClosed(.failure(error as? OperatorError ?? .unavailable)))
            }
          }

        case .surveyClosed(.success):
          return loadSurveys(&state)

        case let .surveyClosed(.failure(error)):
          state.destination = error == .notFound ? .notFound : .unavailable
          return .none

        case let .auditPageRequested(cursor):
          state.auditCursor = cursor
          return .run { send in
            do {
              await send(.auditLoaded(.success(try await operators.auditPage(cursor))))
            } catch {
              await send(.auditLoaded(.failure(error as? OperatorError ?? .unavailable)))
            }
          }

        case let .auditLoaded(.success(page)):
          state.auditPage = page
          state.destination = .audit
          return .none

        case let .auditLoaded(.failure(error)):
          // A cursor that no page gave is no page.
          state.destination = error == .notFound ? .notFound : .unavailable
          return .none

        case .logoutButtonTapped:
          state.identityChange = .signedOut
          state.destination = .login
          return .none

        case .desk(.delegate(.search)):
          state.destination = .users
          return .none

        case let .desk(.delegate(.user(user, outcome))):
          state.now = now  // what expires, and the rank, as of now
          state.destination = .user(user, outcome)
          return .none

        case let .desk(.delegate(.failed(error))):
          state.destination = error == .notFound ? .notFound : .unavailable
          return .none

        case .desk:
          return .none

        case let .team(.delegate(.page(outcome))):
          state.destination = .operators(outcome)
          return .none

        case let .team(.delegate(.failed(error))):
          state.destination = error == .notFound ? .notFound : .unavailable
          return .none

        case .team:
          return .none
        }
      }
    }
    .ifLet(\.editor, action: \.editor) { SurveyEditor() }
  }

  /// Why `action` is not for the operator of `state`, as where it leads instead (the second
  /// factor, 403, the second factor asked again, 404 signed out); `nil`: it is.
  static func refusal(of action: Action, in state: State, at now: Date) -> Destination? {
    switch action {
    case .loginPageRequested, .loginSubmitted, .loginFinished, .homeRequested:
      return nil
    default:
      // Everything but signing in is for a signed-in operator; the web layer answers 404 to
      // anyone else before an action is sent, and this holds if one ever is.
      guard state.signedIn != nil else { return .notFound }
    }
    guard let area = action.area else { return nil }
    guard case let .given(at) = state.secondFactor else { return .secondFactor }
    guard state.role?.may(area) == true else { return .forbidden }
    if area.asksSecondFactorAgain, now.timeIntervalSince(at) > reconfirmAfter { return .reconfirm }
    return nil
  }

  /// Where the console opens: the sign-in, the second factor, or the role's first part.
  private func home(_ state: inout State) -> Effect<Action> {
    guard state.signedIn != nil else {
      state.destination = .login
      return .none
    }
    guard case .given = state.secondFactor else {
      state.destination = .secondFactor
      return .none
    }
    switch state.role?.home {
    case .surveys?: return loadSurveys(&state)
    default:
      state.destination = .users
      return .none
    }
  }

  /// `path` if it is a page of the console to go back to (`/admin/…`, no other host, no
  /// control characters), else `nil`.
  public static func consolePath(_ path: String) -> String? {
    guard path.hasPrefix("/admin/"), !path.contains("\\"), !path.contains("//"), !path.contains(".."),
      path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
    else { return nil }
    return path
  }

  /// A new survey's id: `s-` and 8 hexadecimal digits.
  private func newSurveyID() -> SurveyID {
    SurveyID("s-" + uuid().uuidString.replacingOccurrences(of: "-", with: "").prefix(8).lowercased())
  }

  /// Keeps a new draft, then opens it in the editor.
  private func create(_ draft: EditorDraft) -> Effect<Action> {
    .run { [operators] send in
      do {
        try await operators.saveDraft(draft)
        await send(.draftCreated(.success(draft.id)))
      } catch {
        await send(.draftCreated(.failure(error as? OperatorError ?? .unavailable)))
      }
    }
  }

  /// The editor of survey `id`: its draft when it has one, else its form as published; a survey
  /// that is neither is not found.
  private func loadEditor(_ id: SurveyID) -> Effect<Action> {
    .run { [surveyClient, operators, now] send in
      do {
        let published = try await surveyClient.fetch(id)
        let draft = try await operators.draft(id) ?? published.map { EditorDraft(id: id, form: SurveyForm($0), savedAt: now) }
        guard let draft else { return await send(.editorLoaded(.failure(.notFound))) }
        // A published survey's responses so far: what an edit's changes touch.
        let counts = published == nil ? nil : try await operators.responseCounts(id)
        await send(.editorLoaded(.success(SurveyEditor.State(draft: draft, published: published, liveCounts: counts))))
      } catch {
        await send(.editorLoaded(.failure(error as? OperatorError ?? .unavailable)))
      }
    }
  }

  /// The surveys page: every survey of the catalog with its state now, newest first.
  private func loadSurveys(_ state: inout State) -> Effect<Action> {
    state.now = now
    return .run { [surveyClient, operators] send in
      do {
        let board = Board(surveys: try await surveyClient.fetchAll(), drafts: try await operators.drafts())
        await send(.surveysLoaded(.success(board)))
      } catch {
        await send(.surveysLoaded(.failure(.unavailable)))
      }
    }
  }
}

extension OperatorFeature.Action {
  /// The part of the console an action acts in, whose role and second factor it needs; `nil` for
  /// signing in and out and for what effects send back.
  public var area: ConsoleArea? {
    switch self {
    case .surveysPageRequested, .dashboardRequested: .surveys
    case .newSurveyButtonTapped, .duplicateButtonTapped, .editorRequested, .previewRequested, .editorSubmitted, .closeSurveyButtonTapped: .catalog
    case .exportRequested, .exportPageRequested: .exports
    case .auditPageRequested: .audit
    case .desk(.searchRequested), .desk(.dossierRequested), .desk(.actionSubmitted), .desk(.waitingRequested), .desk(.adjustmentDecided): .desk
    case .team(.pageRequested), .team(.changeSubmitted): .operators
    default: nil
    }
  }
}

/// The console's parts, run only for an action its operator may send (`OperatorFeature.refusal`):
/// any other leads where the refusal says, and nothing else happens.
private struct Admitted<Reducers: Reducer>: Reducer
where Reducers.State == OperatorFeature.State, Reducers.Action == OperatorFeature.Action {
  let reducers: Reducers
  @Dependency(\.date.now) var now

  init(@ReducerBuilder<OperatorFeature.State, OperatorFeature.Action> _ build: () -> Reducers) {
    reducers = build()
  }

  func reduce(into state: inout OperatorFeature.State, action: OperatorFeature.Action) -> Effect<OperatorFeature.Action> {
    if let refusal = OperatorFeature.refusal(of: action, in: state, at: now) {
      state.destination = refusal
      return .none
    }
    return reducers.reduce(into: &state, action: action)
  }
}

/// A walk through a preview's pages: the answers carried in its address (a preview keeps
/// nothing), the page they were sent from, and whether it was left for the one before.
public struct PreviewWalk: Equatable, Sendable {
  public let answers: AnswerDraft
  public let page: Int
  public let back: Bool

  public init(answers: AnswerDraft, page: Int, back: Bool) {
    (self.answers, self.page, self.back) = (answers, page, back)
  }
}

extension OperatorFeature {
  /// The survey's page as a respondent gets it (the survey feature makes it): its screening, or
  /// its own questions (`mainQuestions`), at the page `walk` leads to. Nothing is kept or paid:
  /// the state is the preview's own.
  static func preview(_ survey: Survey, mainQuestions: Bool, walk: PreviewWalk?, at date: Date) -> SurveyDetail.State {
    // Its questions, whoever previews them: whom it is for (targeting, quota cells) is not shown.
    let survey = survey.forEveryone
    var progress = UserProgress()
    if mainQuestions { progress.qualify(for: survey.id, at: date) }
    let intent: SurveyDetail.Page.Intent = switch walk {
    case let walk? where walk.back: .back(walk.answers, version: survey.version, page: walk.page)
    case let walk?: .submit(walk.answers, version: survey.version, page: walk.page)
    case nil: .answer
    }
    var detail = SurveyDetail.State(
      progress: progress, draft: walk.map { SurveyDraft($0.answers, of: survey, page: $0.page) }, page: SurveyDetail.Page(surveyID: survey.id, intent: intent)
    )
    withDependencies {
      $0.date.now = date
      $0.respondents = RespondentClient { _ in "preview" }
    } operation: {
      // The last page is not sent from a preview (its button is off): only the walk's pages run.
      _ = SurveyDetail().reduce(into: &detail, action: .surveyLoaded(.success(survey)))
      if walk != nil {
        // Then the page it leads to, as the 303 after a respondent's form shows it.
        detail.page = SurveyDetail.Page(surveyID: survey.id)
        _ = SurveyDetail().reduce(into: &detail, action: .surveyLoaded(.success(survey)))
      }
    }
    return detail
  }
}
