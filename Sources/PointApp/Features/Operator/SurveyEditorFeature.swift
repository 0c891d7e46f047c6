import CasePaths
import Composable
import Dependencies
import Foundation

/// The survey editor (`/admin/surveys/{id}/edit`), a child of `OperatorFeature`: one survey's
/// form, saved as a draft on every button (no JavaScript: adding, removing and moving questions
/// are buttons that send the whole form), checked field by field, previewed, published as the
/// survey's next version or discarded.
public struct SurveyEditor: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var draft: EditorDraft
    /// The survey as published now, when it is (the draft edits it).
    public var published: Survey?
    /// What is wrong with the form, by field: shown once the draft was checked.
    public var errors: SurveyForm.Errors = [:]
    /// The published survey's responses so far, counted: what its changes touch.
    public var liveCounts: ResponseCounts?

    public init(draft: EditorDraft, published: Survey?, liveCounts: ResponseCounts? = nil) {
      self.draft = draft
      self.published = published
      self.liveCounts = liveCounts
      errors = checkedErrors
    }

    /// What publishing the form would change in the live version, with the responses each
    /// touches; `nil` for a survey not published yet, or a form with mistakes.
    public var changes: [SurveyChange]? {
      guard let published, case let .success(next) = survey else { return nil }
      return published.changes(to: next, counts: liveCounts ?? ResponseCounts())
    }

    public var id: SurveyID { draft.id }

    /// The form's mistakes once the draft was checked (previewed, or sent to publish).
    var checkedErrors: SurveyForm.Errors {
      guard draft.isChecked, case let .failure(errors) = survey else { return [:] }
      return errors
    }

    /// The survey the form makes, as the version publishing it would make, or its mistakes.
    public var survey: Result<Survey, SurveyForm.Errors> {
      draft.form.survey(id: draft.id, version: (published?.version ?? 0) + 1, base: published)
    }
  }

  /// Which button sent the form.
  public enum Intent: Equatable, Sendable {
    case save
    case addQuestion(SurveyForm.Kind)
    case removeQuestion(Int)
    case moveQuestion(Int, by: Int)
    case preview
    case publish
    case discard
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    /// The form as sent, and the button that sent it.
    case submitted(SurveyForm, Intent)
    case saved(Result<Intent, OperatorError>)
    case published(Result<Survey, OperatorError>)
    case discarded(Result<SurveyID, OperatorError>)
    case delegate(Delegate)

    public enum Delegate: Equatable, Sendable {
      /// Back to the form (saved, or with its mistakes).
      case editing
      case previewing
      case published(Survey)
      case discarded
      case failed(OperatorError)
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.operators) var operators

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .submitted(form, intent):
        state.draft.form = form
        state.draft.savedAt = now
        switch intent {
        case .save, .preview, .publish, .discard: break
        case let .addQuestion(kind): state.draft.form.addQuestion(kind)
        case let .removeQuestion(index): state.draft.form.removeQuestion(at: index)
        case let .moveQuestion(index, offset): state.draft.form.moveQuestion(at: index, by: offset)
        }
        if intent == .discard {
          return .run { [operators, id = state.id] send in
            do {
              try await operators.discardDraft(id)
              await send(.discarded(.success(id)))
            } catch {
              await send(.discarded(.failure(error as? OperatorError ?? .unavailable)))
            }
          }
        }
        if intent == .preview || intent == .publish { state.draft.isChecked = true }
        if intent == .publish, case let .success(survey) = state.survey {
          return .run { [operators] send in
            do {
              await send(.published(.success(try await operators.publish(survey))))
            } catch {
              await send(.published(.failure(error as? OperatorError ?? .unavailable)))
            }
          }
        }
        return .run { [operators, draft = state.draft] send in
          do {
            try await operators.saveDraft(draft)
            await send(.saved(.success(intent)))
          } catch {
            await send(.saved(.failure(error as? OperatorError ?? .unavailable)))
          }
        }

      case let .saved(.success(intent)):
        return .send(.delegate(intent == .preview && state.errors.isEmpty ? .previewing : .editing))

      case let .published(.success(survey)):
        state.published = survey
        return .send(.delegate(.published(survey)))

      case .discarded(.success):
        return .send(.delegate(.discarded))

      case let .saved(.failure(error)), let .published(.failure(error)), let .discarded(.failure(error)):
        return .send(.delegate(.failed(error)))

      case .delegate:
        return .none
      }
    }
    // The form's mistakes follow the draft, once it was checked.
    .onChange(of: \.draft) { _, state in
      state.errors = state.checkedErrors
      return .none
    }
  }
}
