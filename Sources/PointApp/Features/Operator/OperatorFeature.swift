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
    /// The preview shows the survey's own questions rather than its screening.
    public var previewsMainQuestions = false
    /// The survey whose dashboard or export is asked for, and its counts.
    public var survey: Survey?
    public var counts = ResponseCounts()
    /// The support desk's pages.
    public var desk = SupportDesk.State()

    public init(signedIn: String? = nil, refusal: AccountError? = nil) {
      self.signedIn = signedIn
      self.refusal = refusal
    }
  }

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

    public init(survey: Survey, counts: ResponseCounts) {
      self.survey = survey
      self.counts = counts
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
    case surveys
    case audit
    case editor(SurveyID)
    case preview(SurveyID)
    case dashboard(SurveyID)
    /// The support desk's search page.
    case users
    /// A user at the support desk, with what the form before did.
    case user(String, SupportOutcome?)
    /// A survey's responses, sent as they are read (the web shell streams them).
    case export(SurveyID, ResponseExport)
    case notFound
    case unavailable
    case tooManyAttempts
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    /// `/admin`: the console's first page.
    case homeRequested
    /// The sign-in page; `refused` after a sign-in that was (the page says why).
    case loginPageRequested(refused: Bool)
    case loginSubmitted(email: String, password: Secret)
    case loginFinished(Result<String, AccountError>)
    case surveysPageRequested
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
    case previewRequested(SurveyID, mainQuestions: Bool)
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
    case closeSurveyButtonTapped(SurveyID)
    case surveyClosed(Result<Survey, OperatorError>)
    case auditPageRequested(cursor: String?)
    case auditLoaded(Result<AuditPage, OperatorError>)
    case logoutButtonTapped
    case desk(SupportDesk.Action)
  }

  @Dependency(\.date.now) var now
  @Dependency(\.uuid) var uuid
  @Dependency(\.surveyClient) var surveyClient
  @Dependency(\.operators) var operators

  public init() {}

  public var body: some ReducerOf<Self> {
    Scope(state: \.desk, action: \.desk) { SupportDesk() }
    Reduce { state, action in
      // Everything but signing in is for a signed-in operator; the web layer answers 404 to
      // anyone else before an action is sent, and this holds if one ever is.
      switch action {
      case .loginPageRequested, .loginSubmitted, .loginFinished, .homeRequested:
        break
      default:
        guard state.signedIn != nil else {
          state.destination = .notFound
          return .none
        }
      }
      switch action {
      case .homeRequested:
        if state.signedIn == nil {
          state.destination = .login
          return .none
        }
        return loadSurveys(&state)

      case let .loginPageRequested(refused):
        guard state.signedIn == nil else { return loadSurveys(&state) }
        if refused { state.refusal = .wrongCredentials }
        state.destination = .login
        return .none

      case let .loginSubmitted(email, password):
        state.refusal = nil
        return .run { send in
          do {
            await send(.loginFinished(.success(try await operators.signIn(email, password))))
          } catch {
            await send(.loginFinished(.failure(AccountError(error))))
          }
        }

      case let .loginFinished(.success(email)):
        state.identityChange = .signedIn(email)
        state.destination = .surveys
        return .none

      case let .loginFinished(.failure(error)):
        state.refusal = error
        state.destination = error == .throttled ? .tooManyAttempts : .login
        return .none

      case .surveysPageRequested:
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

      case let .previewRequested(id, mainQuestions):
        state.destination = .preview(id)
        state.previewsMainQuestions = mainQuestions
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
            await send(.dashboardLoaded(.success(Dashboard(survey: survey, counts: try await operators.responseCounts(id)))))
          } catch {
            await send(.dashboardLoaded(.failure(error as? OperatorError ?? .unavailable)))
          }
        }

      case let .dashboardLoaded(.success(dashboard)):
        state.survey = dashboard.survey
        state.counts = dashboard.counts
        state.destination = .dashboard(dashboard.survey.id)
        return .none

      case let .dashboardLoaded(.failure(error)), let .exportStarted(.failure(error), _):
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
      }
    }
    .ifLet(\.editor, action: \.editor) { SurveyEditor() }
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
        await send(.editorLoaded(.success(SurveyEditor.State(draft: draft, published: published))))
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
