import ComposableTesting
import Dependencies
import Foundation
@testable import PointApp
import Testing

/// The mail a member chooses to hear: settings, one-click unsubscribe, an invitation once per
/// survey to those it is for, a warning once per lot before its points expire.
struct NotificationsTests {
  let address = EmailAddress("hanako@example.jp")!

  func makeStore(signedIn: Bool = true, progress: UserProgress = UserProgress(), now: Date = noon) -> TestStoreOf<AppFeature> {
    var state = AppFeature.State()
    state.progress = progress
    if signedIn { state.account = address }
    return appStore(state, now: now)
  }

  func notices(stopping stopped: [NoticeList] = []) -> Notices {
    var notices = Notices()
    for list in stopped { notices.set(list, on: false) }
    return notices
  }

  @Test func theSettingsFormStopsAndStartsEachList() async {
    let store = makeStore()
    await store.send(.notifications(.settingsSubmitted([.expiry]))) {
      $0.progress.notices = notices(stopping: [.invitations])
      $0.destination = .notificationSettings
    }
    await store.receive(.notifications(.delegate(.saved))) { $0.flash = Flash(.success, "メールの配信設定を保存しました。") }
    await store.send(.notifications(.settingsSubmitted([]))) { $0.progress.notices = notices(stopping: [.expiry, .invitations]) }
    await store.receive(.notifications(.delegate(.saved)))
    await store.send(.notifications(.settingsSubmitted([.invitations, .expiry]))) { $0.progress.notices = Notices() }
    await store.receive(.notifications(.delegate(.saved)))
  }

  @Test func aGuestHasNoSettingsToChange() async {
    let store = makeStore(signedIn: false)
    await store.send(.notifications(.settingsSubmitted([]))) { $0.destination = .login }
    await store.send(.notificationSettingsPageRequested)  // to the login form, where it already was
  }

  @Test func theSettingsPageIsTheAccounts() async {
    let store = makeStore()
    await store.send(.notificationSettingsPageRequested) {
      $0.destination = .notificationSettings
      $0.progress.recordVisit(on: today, at: noon)
    }
  }

  @Test func anUnsubscribeLinkStopsItsListOnly() async {
    let store = makeStore(signedIn: false)
    await store.send(.notifications(.unsubscribed(.invitations))) { $0.progress.notices = notices(stopping: [.invitations]) }
    await store.receive(.notifications(.delegate(.unsubscribed(.invitations))))
    // A second click changes nothing.
    await store.send(.notifications(.unsubscribed(.invitations)))
    await store.receive(.notifications(.delegate(.unsubscribed(.invitations))))
  }

  @Test func aMemberIsInvitedOncePerSurvey() async {
    let store = makeStore(signedIn: false)
    await store.send(.notifications(.invitationDue(.sweets, to: address))) {
      $0.progress.notices.recordInvitation(to: Survey.sweets.id, at: noon)
      $0.outbox = [MailRequest(to: address, .invitation(SurveyInvitation(.sweets)))]
    }
    // The same pass again (a page done twice after a kill): nothing more.
    await store.send(.notifications(.invitationDue(.sweets, to: address)))
  }

  @Test func nobodyIsInvitedToASurveyNotForThem() async {
    var ids = 0
    // Answered already.
    await makeStore(progress: .answered([.sweets], ids: &ids)).send(.notifications(.invitationDue(.sweets, to: address)))
    // Closed.
    await makeStore().send(.notifications(.invitationDue(.expired, to: address)))
    // Not published yet.
    await makeStore().send(.notifications(.invitationDue(.fixture(id: "later", publishedAt: noon + 60), to: address)))
    // Targeted, with no profile to tell, or a profile outside it (Hanako was born in 2000: 26).
    await makeStore().send(.notifications(.invitationDue(.twenties, to: address)))
    var older = UserProgress()
    _ = older.saveProfile(Profile(birthYear: 1980, gender: .female, prefecture: .tokyo, occupation: .companyEmployee), id: TransactionID(UUID(0)), at: noon)
    await makeStore(progress: older).send(.notifications(.invitationDue(.twenties, to: address)))
    // Stopped.
    var stopped = UserProgress()
    stopped.notices = notices(stopping: [.invitations])
    await makeStore(progress: stopped).send(.notifications(.invitationDue(.sweets, to: address)))
  }

  /// Two days before its deadline, a survey reminds those it invited who have not answered it:
  /// once; not earlier, not the member who answered or stopped the list, not one never invited.
  @Test func aMemberInvitedAndNotAnsweringIsRemindedOnceBeforeTheDeadline() async {
    let closing = Survey.fixture(id: "closing", questions: [.satisfaction], publishedAt: noon - days(5), expiresAt: noon + days(1))
    var invited = UserProgress()
    _ = invited.invite(to: closing, at: noon - days(5))
    let store = makeStore(progress: invited)
    await store.send(.notifications(.reminderDue(closing, to: address))) {
      $0.progress.notices.recordReminder(of: closing.id)
      $0.outbox = [MailRequest(to: address, .reminder(SurveyInvitation(closing)))]
    }
    await store.send(.notifications(.reminderDue(closing, to: address)))  // a page done twice: nothing more
    // Three days before: too early.
    await makeStore(progress: invited, now: noon - days(2)).send(.notifications(.reminderDue(closing, to: address)))
    // Never invited; invited an hour ago (published close to its deadline: the invitation says it all).
    await makeStore().send(.notifications(.reminderDue(closing, to: address)))
    var lately = UserProgress()
    _ = lately.invite(to: closing, at: noon - 3_600)
    await makeStore(progress: lately).send(.notifications(.reminderDue(closing, to: address)))
    // Answered.
    var answered = invited
    answered.recordAnswer(to: closing, with: [], id: TransactionID(UUID(5)), at: noon - 60, on: today)
    await makeStore(progress: answered).send(.notifications(.reminderDue(closing, to: address)))
    // Stopped the list since.
    var stopped = invited
    _ = stopped.setNotices(.invitations, on: false)
    await makeStore(progress: stopped).send(.notifications(.reminderDue(closing, to: address)))
    // Past its deadline.
    await makeStore(progress: invited, now: noon + days(2)).send(.notifications(.reminderDue(closing, to: address)))
  }

  @Test func aTargetedSurveyInvitesTheMembersItIsFor() async {
    var progress = UserProgress()
    _ = progress.saveProfile(.hanako, id: TransactionID(UUID(0)), at: noon - days(1))
    let store = makeStore(progress: progress)
    await store.send(.notifications(.invitationDue(.twenties, to: address))) {
      $0.progress.notices.recordInvitation(to: Survey.twenties.id, at: noon)
      $0.outbox = [MailRequest(to: address, .invitation(SurveyInvitation(.twenties)))]
    }
  }

  /// Points earned on 2025-11-22 expire at the start of 2026-12 (JST), 9 days after noon; those of
  /// 2025-12-22 a month later.
  @Test func eachLotIsWarnedOfOnceWithinThirtyDaysOfItsExpiry() async {
    var ids = 0
    var progress = UserProgress.answered([.fixture(id: "old", reward: 120)], at: noon - days(365), ids: &ids)
    progress.recordAnswer(to: .fixture(id: "newer", reward: 70), with: [], id: TransactionID(UUID(ids)), at: noon - days(335), on: Day(noon - days(335), in: .tokyo))
    let november = Month(noon - days(365))
    let december = Month(noon - days(335))
    let store = makeStore(signedIn: false, progress: progress)
    await store.send(.notifications(.expiryCheckDue(to: address))) {
      $0.progress.notices.recordWarning(of: [november])
      $0.outbox = [MailRequest(to: address, .expiryWarning([ExpiringPoints(month: november, amount: 120)]))]
    }
    await store.send(.notifications(.expiryCheckDue(to: address)))  // the day's pass again: nothing

    // Two weeks on, November's points have gone and December's are 17 days from going.
    let later = makeStore(signedIn: false, progress: store.state.progress, now: noon + days(14))
    later.exhaustivity = .off(showSkippedAssertions: false)
    await later.send(.notifications(.expiryCheckDue(to: address)))
    #expect(later.state.outbox == [MailRequest(to: address, .expiryWarning([ExpiringPoints(month: december, amount: 70)]))])
    #expect(later.state.progress.notices.warned == [november, december])
  }

  @Test func nothingIsWarnedOfTooEarlyNorToAMemberWhoStoppedIt() async {
    var ids = 0
    // Expires in 39 days.
    await makeStore(progress: .answered([.fixture(reward: 120)], at: noon - days(335), ids: &ids)).send(.notifications(.expiryCheckDue(to: address)))
    var stopped = UserProgress.answered([.fixture(reward: 120)], at: noon - days(365), ids: &ids)
    stopped.notices = notices(stopping: [.expiry])
    await makeStore(progress: stopped).send(.notifications(.expiryCheckDue(to: address)))
    // Spent: a lot within the month, with nothing left in it to lose.
    var spent = UserProgress.answered([.fixture(reward: 120)], at: noon - days(365), ids: &ids)
    try? spent.adjustPoints(by: -120, reason: "テスト", id: TransactionID(UUID(ids)), at: noon - days(1))
    #expect(spent.ledger.lots.lots.first?.remaining == .zero)
    await makeStore(progress: spent).send(.notifications(.expiryCheckDue(to: address)))
  }
}
