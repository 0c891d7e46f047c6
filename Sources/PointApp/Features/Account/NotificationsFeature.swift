import CasePaths
import Composable
import Dependencies
import Foundation

/// The mail a member hears from the site besides their account's own: invitations to surveys they
/// can answer, warnings before points expire. Chosen at `/account/notifications`, stopped in one
/// click from any of these messages, and sent once each: an invitation per survey, a warning per
/// month's lot. The background worker asks (`invitationDue`, `expiryCheckDue`); this decides.
public struct Notifications: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    /// Who sends the settings form: only an account has settings.
    public var signedIn: EmailAddress?
    public var progress: UserProgress
    /// Messages to send with this change.
    public var outbox: [MailRequest]

    public init(signedIn: EmailAddress? = nil, progress: UserProgress = UserProgress(), outbox: [MailRequest] = []) {
      self.signedIn = signedIn
      self.progress = progress
      self.outbox = outbox
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    /// The settings form was sent with these lists ticked.
    case settingsSubmitted(Set<NoticeList>)
    /// A message's unsubscribe link (or its mail program's one click) stopped `list`.
    case unsubscribed(NoticeList)
    /// `survey` was published: the member is invited at `to` if it is for them.
    case invitationDue(Survey, to: EmailAddress)
    /// The day's look at what expires soon, written to `to` if something does.
    case expiryCheckDue(to: EmailAddress)
    /// A survey closes soon: `to` is reminded of it if they were invited and have not answered.
    case reminderDue(Survey, to: EmailAddress)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      case saved
      case unsubscribed(NoticeList)
    }
  }

  @Dependency(\.date.now) var now

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .settingsSubmitted(chosen):
        guard state.signedIn != nil else { return .none }
        for list in NoticeList.allCases { state.progress.setNotices(list, on: chosen.contains(list)) }
        return .send(.delegate(.saved))
      case let .unsubscribed(list):
        state.progress.setNotices(list, on: false)
        return .send(.delegate(.unsubscribed(list)))
      case let .invitationDue(survey, email):
        if state.progress.invite(to: survey, at: now) {
          state.outbox.append(MailRequest(to: email, .invitation(SurveyInvitation(survey))))
        }
        return .none
      case let .reminderDue(survey, email):
        if state.progress.remind(of: survey, at: now) {
          state.outbox.append(MailRequest(to: email, .reminder(SurveyInvitation(survey))))
        }
        return .none
      case let .expiryCheckDue(email):
        let expiring = state.progress.expiryWarning(at: now)
        if !expiring.isEmpty { state.outbox.append(MailRequest(to: email, .expiryWarning(expiring))) }
        return .none
      case .delegate:
        return .none
      }
    }
  }
}
