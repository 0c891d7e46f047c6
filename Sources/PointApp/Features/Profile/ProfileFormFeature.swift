import CasePaths
import Composable
import Dependencies
import Foundation

/// The profile form: what surveys are targeted by. The first profile saved pays its bonus; a
/// refused form is kept with the user's data and shown again with an error at each field.
public struct ProfileForm: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var progress: UserProgress
    /// The fields of a refused form, kept until a profile is saved.
    public var draft: ProfileDraft?
    /// Why the kept form was refused, by field: shown, never saved.
    public var errors: [ProfileField: ProfileError] = [:]

    public init(progress: UserProgress = UserProgress(), draft: ProfileDraft? = nil, errors: [ProfileField: ProfileError] = [:]) {
      self.progress = progress
      self.draft = draft
      self.errors = errors
    }

    /// What the form shows: the refused fields, else the saved profile, else nothing.
    public var fields: ProfileDraft {
      draft ?? progress.profile.map(ProfileDraft.init) ?? ProfileDraft()
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case pageRequested
    case submitted(ProfileDraft)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      /// Saved; `bonus` is what the first profile paid (`nil`: an edit).
      case saved(bonus: PointAmount?)
      case refused
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.uuid) var uuid

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .pageRequested:
        if let draft = state.draft, case let .failure(errors) = Profile.validate(draft, at: now) {
          state.errors = errors.byField
        }
        return .none
      case let .submitted(draft):
        let now = now
        switch Profile.validate(draft, at: now) {
        case let .success(profile):
          state.draft = nil
          state.errors = [:]
          let bonus = state.progress.saveProfile(profile, id: TransactionID(uuid()), at: now)
          return .send(.delegate(.saved(bonus: bonus)))
        case let .failure(errors):
          state.draft = draft
          state.errors = errors.byField
          return .send(.delegate(.refused))
        }
      case .delegate:
        return .none
      }
    }
  }
}
